/** Reading an eval suite file: YAML, checked against its schema, every problem named with its field. */
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { AppProblems } from '../../src/runtime/app/app-problems.ts';
import { createYamlValidator, type YamlValidator } from '../../src/runtime/app/yaml-validator.ts';
import { SUITE_SCHEMA } from './suite-schema.ts';
import type { Suite } from './suite-types.ts';

/** A suite as read, with where its paths resolve from. */
export interface LoadedSuite {
  readonly suite: Suite;
  /** The suite's name: its `suite`, else the file name. */
  readonly name: string;
  /** The folder of the suite file: `app` and each `fixture` are relative to it. */
  readonly dir: string;
}

let validator: YamlValidator | undefined;

/**
 * Reads and checks the suite file at `path`.
 *
 * @throws Error listing every problem (`cases[0].expect[1]: …`), or when the file cannot be read.
 */
export async function readSuite(path: string): Promise<LoadedSuite> {
  const file = basename(path);
  const value = parse(await readFile(path, 'utf8')) as unknown;
  const problems = new AppProblems();
  validator ??= createYamlValidator(SUITE_SCHEMA);
  if (validator.check(value, file, problems)) {
    (value as Suite).cases.forEach((entry, index) => {
      if ((entry.fixture === undefined) === (entry.turns === undefined)) problems.add(file, `cases[${String(index)}]`, 'needs either fixture (a recorded conversation) or turns (a scripted one)');
      if (entry.model === 'scripted' && entry.turns?.some((turn) => turn.script === undefined) === true) problems.add(file, `cases[${String(index)}].turns`, 'each turn needs a script when the case is model: scripted');
    });
  }
  if (problems.size > 0) throw new Error(`${path} is not a valid eval suite:\n${problems.list().map((problem) => `  ${problem.field ?? ''}: ${problem.message}`).join('\n')}`);
  const suite = value as Suite;
  return { suite, name: suite.suite ?? file, dir: dirname(resolve(path)) };
}
