/** Reads the actor files of an app folder (`actors/<name>.yaml`) into {@link ActorConfig}s. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_ACTOR_LIMITS, type ActorConfig } from '../actor/actor-config.ts';
import { messageOf, type AppProblems } from './app-problems.ts';
import { ACTOR_FILE_SCHEMA } from './app-schemas.ts';
import type { ActorFile } from './app-types.ts';
import { readYamlFile } from './read-yaml-file.ts';
import { createYamlValidator, type YamlValidator } from './yaml-validator.ts';

let actorValidator: YamlValidator | undefined;

/** An actor and the file it came from. */
export interface LoadedActor {
  readonly config: ActorConfig;
  /** Relative to the app folder: `actors/<name>.yaml`. */
  readonly file: string;
}

async function actorFileNames(actorsDir: string, problems: AppProblems): Promise<string[]> {
  let names: string[];
  try {
    const entries = await readdir(actorsDir, { withFileTypes: true });
    names = entries.filter((entry) => entry.isFile()).map((entry) => entry.name).sort();
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    problems.add('actors/', undefined, missing ? 'folder not found; an app needs at least one actors/<name>.yaml' : `cannot be read: ${messageOf(error)}`);
    return [];
  }
  for (const name of names.filter((file) => file.endsWith('.yml'))) {
    problems.add(`actors/${name}`, undefined, 'actor files must end in .yaml, not .yml');
  }
  const yamlNames = names.filter((file) => file.endsWith('.yaml'));
  if (yamlNames.length === 0) problems.add('actors/', undefined, 'holds no actor files; an app needs at least one actors/<name>.yaml');
  return yamlNames;
}

/**
 * Reads, validates and fills the defaults of every `actors/*.yaml` in `dir`, sorted by file name:
 * `model` defaults to `defaultModel`, `tools` to `[]`, `midTurn` to `steer`, each limit to
 * {@link DEFAULT_ACTOR_LIMITS}. Problems are recorded; invalid files are left out of the result.
 */
export async function loadActors(dir: string, defaultModel: string, problems: AppProblems): Promise<LoadedActor[]> {
  const actorsDir = join(dir, 'actors');
  actorValidator ??= createYamlValidator(ACTOR_FILE_SCHEMA);
  const validator = actorValidator;
  const actors: LoadedActor[] = [];
  for (const fileName of await actorFileNames(actorsDir, problems)) {
    const file = `actors/${fileName}`;
    const read = await readYamlFile(join(actorsDir, fileName), file, problems);
    if (!read.ok || !validator.check(read.value, file, problems)) continue;
    const actor = read.value as ActorFile;
    const expected = fileName.slice(0, -'.yaml'.length);
    if (actor.name !== expected) {
      problems.add(file, 'name', `is "${actor.name}" but must equal the file name "${expected}"`);
      continue;
    }
    actors.push({
      file,
      config: {
        name: actor.name,
        model: actor.model ?? defaultModel,
        systemPrompt: actor.system.trim(),
        tools: actor.tools ?? [],
        midTurn: actor.midTurn ?? 'steer',
        limits: { ...DEFAULT_ACTOR_LIMITS, ...actor.limits },
      },
    });
  }
  return actors;
}
