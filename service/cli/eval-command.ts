/**
 * `switchboard eval <suite.yaml> [--compare <actors>]`: an eval suite's cases run on the app's
 * current actors (the real model endpoint, or the recorded/scripted responses of `model: scripted`
 * cases), their expectations checked and printed as a table; with `--compare`, a second actor
 * version runs beside the first and what it changes is printed per case.
 */
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { DEFAULT_ACTOR_MODEL } from '../../src/config/models.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { readCompareActors } from '../evals/compare-actors.ts';
import { anyFailed, formatDifferences, formatTable } from '../evals/eval-table.ts';
import { readSuite, type LoadedSuite } from '../evals/read-suite.ts';
import { runSuite, type LiveModel } from '../evals/run-suite.ts';
import { modelFromEnv } from '../model-from-env.ts';
import { messageOf } from '../replay/log-fields.ts';

/** What the command needs. */
export interface EvalCommandDeps {
  /** The service's environment: the default app folder and the model endpoint. */
  readonly env: SwitchboardEnv;
  /** Where relative paths of the arguments start. */
  readonly cwd: string;
  /** The model endpoint. Default: the one the environment configures. */
  readonly live?: LiveModel;
}

const USAGE = 'usage: switchboard eval <suite.yaml> [--compare <actors folder | actor file>]';

function parseArgs(args: readonly string[]): { suite: string; compare?: string } | string {
  let suite: string | undefined;
  let compare: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--compare') {
      compare = args[++index];
      if (compare === undefined) return '--compare takes an actors folder or an actor file.';
    } else if (arg.startsWith('--') || suite !== undefined) {
      return `unexpected "${arg}".`;
    } else {
      suite = arg;
    }
  }
  if (suite === undefined) return 'which suite? Give the path of its YAML file.';
  return { suite, ...(compare === undefined ? {} : { compare }) };
}

/**
 * Runs the command; resolves to its exit code: 0 when every expectation holds, 1 when one fails,
 * 2 when the suite cannot run (bad arguments, an invalid suite or compared actors).
 */
export async function runEvalCommand(args: readonly string[], deps: EvalCommandDeps, out: Writable): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    out.write(`switchboard eval: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  let suite: LoadedSuite;
  try {
    suite = await readSuite(resolve(deps.cwd, parsed.suite));
  } catch (error) {
    out.write(`switchboard eval: ${messageOf(error)}\n`);
    return 2;
  }
  const appDir = suite.suite.app === undefined ? deps.env.appDir : resolve(suite.dir, suite.suite.app);
  const live = deps.live ?? modelFromEnv(deps.env);
  const base = await runSuite(suite, { appDir, live });
  out.write(formatTable(`Suite ${suite.name}: the current actors of ${appDir}`, base));
  if (parsed.compare === undefined) return anyFailed(base) ? 1 : 0;
  let actors;
  try {
    actors = await readCompareActors(resolve(deps.cwd, parsed.compare), DEFAULT_ACTOR_MODEL);
  } catch (error) {
    out.write(`switchboard eval: ${messageOf(error)}\n`);
    return 2;
  }
  const compared = await runSuite(suite, { appDir, live, actors });
  out.write(`\n${formatTable(`Suite ${suite.name}: with the actors of ${parsed.compare} (${actors.map((actor) => actor.name).join(', ')})`, compared)}`);
  out.write(`\n${formatDifferences(base, compared, parsed.compare)}`);
  return anyFailed(base) || anyFailed(compared) ? 1 : 0;
}
