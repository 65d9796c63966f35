/**
 * Runs an eval suite's cases on one bot of the app (its current actors, or others put in their
 * place), each case in a conversation of its own, and checks each case's expectations.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACTOR_MODEL } from '../../src/config/models.ts';
import type { ActorConfig } from '../../src/runtime/actor/actor-config.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { messageOf, stringField } from '../replay/log-fields.ts';
import { runPlannedTurn, type RanTurn } from '../replay/run-turn.ts';
import { openBot, type BotParts } from '../testing/bot-core.ts';
import { planCase } from './case-plan.ts';
import { checkExpectation, type CaseOutcome, type ExpectationResult } from './expectations.ts';
import type { LoadedSuite } from './read-suite.ts';
import type { SuiteCase } from './suite-types.ts';

/** The model endpoint the service would use, as `modelFromEnv` finds it. */
export interface LiveModel {
  readonly client: ModelClient;
  readonly configured: boolean;
  /** The variables to set when it is not configured. */
  readonly missing: readonly string[];
}

/** Options of {@link runSuite}. */
export interface RunSuiteOptions {
  /** The app folder. */
  readonly appDir: string;
  readonly live: LiveModel;
  /** Actors put in place of the app's of the same name (`--compare`). */
  readonly actors?: readonly ActorConfig[];
}

/** One case's rows, and what its turns did (unset when it did not run). */
export interface CaseReport {
  readonly name: string;
  readonly results: readonly ExpectationResult[];
  readonly outcome?: CaseOutcome;
}

/** What the case's turns did, all together. */
function outcomeOf(turns: readonly RanTurn[]): CaseOutcome {
  const emitted = turns.flatMap((turn) => turn.emitted);
  const last = turns.at(-1)?.runs.at(-1);
  return {
    toolCalls: turns.flatMap((turn) => turn.runs.at(-1)?.toolCalls ?? []).map((call) => ({ name: call.name, args: call.args, outcome: call.outcome })),
    approvals: emitted.filter(({ part }) => part.metadata.partType === 'approval-request').map(({ part }) => stringField(part.data?.['toolName']) ?? 'unknown'),
    parts: emitted.map(({ part }) => ({ partType: part.metadata.partType, ...(part.text === undefined ? {} : { text: part.text }) })),
    ...(last === undefined ? {} : { turnState: last.turnState }),
  };
}

/** Runs one case's turns and checks its expectations. */
async function runCase(parts: BotParts, model: { use(client: ModelClient): void }, entry: SuiteCase, suite: LoadedSuite, live: LiveModel): Promise<CaseReport> {
  const scripted = entry.model === 'scripted';
  const { name } = entry;
  if (!scripted && !live.configured) {
    return { name, results: [{ expectation: 'runs on the model endpoint', pass: false, detail: `no model endpoint: set ${live.missing.join(' or ')}, or make the case model: scripted` }] };
  }
  model.use(scripted ? parts.script : live.client);
  let ran: RanTurn[];
  try {
    const plan = await planCase(entry, suite.dir, parts.app.people.map((person) => person.id));
    const conversation = `eval:${randomUUID()}`;
    ran = [];
    for (const turn of plan) ran.push(await runPlannedTurn(parts, conversation, turn));
  } catch (error) {
    return { name, results: [{ expectation: 'runs', pass: false, detail: messageOf(error) }] };
  }
  const outcome = outcomeOf(ran);
  const broken = ran.flatMap((turn) => [
    ...(turn.failure === undefined ? [] : [turn.failure]),
    ...(turn.unusedSteps > 0 ? [`${String(turn.unusedSteps)} step(s) of the script unused`] : []),
  ]);
  const runRow: ExpectationResult[] = broken.length === 0 ? [] : [{ expectation: scripted ? 'runs the script through' : 'runs', pass: false, detail: broken.join('; ') }];
  return { name, results: [...runRow, ...entry.expect.map((expectation) => checkExpectation(expectation, outcome))], outcome };
}

/**
 * Runs every case of `suite` on a bot of `options.appDir` (a private Redis, stopped after) and
 * checks its expectations. A case that cannot run fails with one row saying why.
 *
 * @throws SwitchboardError `app.invalid` when the app (with `options.actors`) does not load.
 */
export async function runSuite(suite: LoadedSuite, options: RunSuiteOptions): Promise<CaseReport[]> {
  let current: ModelClient | undefined;
  const model = {
    use(client: ModelClient): void { current = client; },
    create: (...call: Parameters<ModelClient['create']>) => {
      if (current === undefined) throw new Error('No model chosen for this case.');
      return current.create(...call);
    },
  };
  const parts = await openBot({ app: options.appDir }, { model, defaultModel: DEFAULT_ACTOR_MODEL, ...(options.actors === undefined ? {} : { actors: options.actors }) });
  try {
    const reports: CaseReport[] = [];
    for (const entry of suite.suite.cases) reports.push(await runCase(parts, model, entry, suite, options.live));
    return reports;
  } finally {
    await parts.close();
  }
}
