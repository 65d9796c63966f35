/** The actors of `switchboard eval --compare`: an actors folder, an app folder, or one actor file. */
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ActorConfig } from '../../src/runtime/actor/actor-config.ts';
import { AppProblems } from '../../src/runtime/app/app-problems.ts';
import { loadActors } from '../../src/runtime/app/load-actors.ts';

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads the actors at `path`: every `<name>.yaml` of a folder (or of its `actors/` folder, for an
 * app folder), or one actor file; checked as the service checks them. Actors that set no `model`
 * get `defaultModel`.
 *
 * @throws Error listing every problem, or when `path` does not exist.
 */
export async function readCompareActors(path: string, defaultModel: string): Promise<ActorConfig[]> {
  const full = resolve(path);
  if (await isFolder(join(full, 'actors'))) return checked(await load(full, defaultModel), path);
  const scratch = await mkdtemp(join(tmpdir(), 'switchboard-eval-actors-'));
  try {
    if (await isFolder(full)) {
      await symlink(full, join(scratch, 'actors'), 'dir');
    } else {
      // One file: named after the actor it holds, as the actors folder would name it.
      const text = await readFile(full, 'utf8');
      const named = (parse(text) as { name?: unknown } | null)?.name;
      await mkdir(join(scratch, 'actors'));
      await writeFile(join(scratch, 'actors', typeof named === 'string' ? `${named}.yaml` : basename(full)), text);
    }
    return checked(await load(scratch, defaultModel), path);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function load(dir: string, defaultModel: string): Promise<{ actors: ActorConfig[]; problems: AppProblems }> {
  const problems = new AppProblems();
  const actors = (await loadActors(dir, defaultModel, problems)).map((actor) => actor.config);
  return { actors, problems };
}

function checked(loaded: { actors: ActorConfig[]; problems: AppProblems }, path: string): ActorConfig[] {
  if (loaded.problems.size === 0) return loaded.actors;
  const lines = loaded.problems.list().map((problem) => `  ${problem.file}${problem.field === undefined ? '' : ` ${problem.field}`}: ${problem.message}`);
  throw new Error(`The actors of ${path} have problems:\n${lines.join('\n')}`);
}
