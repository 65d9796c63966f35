/** Reads and shape-checks `switchboard.yaml`. */
import { join } from 'node:path';
import type { AppProblems } from './app-problems.ts';
import { SWITCHBOARD_FILE_SCHEMA } from './app-schemas.ts';
import type { SwitchboardConfig } from './app-types.ts';
import { readYamlFile } from './read-yaml-file.ts';
import { createYamlValidator, type YamlValidator } from './yaml-validator.ts';

/** The app file's name, relative to the app folder. */
export const SWITCHBOARD_FILE = 'switchboard.yaml';

let validator: YamlValidator | undefined;

/**
 * Reads `<dir>/switchboard.yaml` and checks it against its schema. References to actors, tools and
 * people are not checked here.
 *
 * @returns the config, or `undefined` when problems were recorded.
 */
export async function readSwitchboardFile(dir: string, problems: AppProblems): Promise<SwitchboardConfig | undefined> {
  const read = await readYamlFile(join(dir, SWITCHBOARD_FILE), SWITCHBOARD_FILE, problems);
  if (!read.ok) return undefined;
  validator ??= createYamlValidator(SWITCHBOARD_FILE_SCHEMA);
  return validator.check(read.value, SWITCHBOARD_FILE, problems) ? (read.value as SwitchboardConfig) : undefined;
}
