/** Reading and writing replay fixtures: YAML, or JSON for a file name ending in `.json`. */
import { readFile, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { FIXTURE_FORMAT, type ReplayFixture } from './fixture-types.ts';
import { objectField, objectsField } from './log-fields.ts';

/**
 * Checks that `value` has the shape of a {@link ReplayFixture} (its format, a channel, turns with
 * their lists); `name` names it in the error.
 *
 * @throws Error naming what is wrong.
 */
export function asFixture(value: unknown, name: string): ReplayFixture {
  const fixture = objectField(value);
  if (fixture?.['format'] !== FIXTURE_FORMAT) throw new Error(`${name} is not a replay fixture: its format must be "${FIXTURE_FORMAT}".`);
  if (typeof fixture['channel'] !== 'string') throw new Error(`${name}: "channel" must be a string.`);
  const turns = objectsField(fixture['turns']);
  if (turns === undefined) throw new Error(`${name}: "turns" must be a list of turns.`);
  turns.forEach((turn, index) => {
    for (const list of ['injections', 'responses', 'toolCalls', 'approvals']) {
      if (objectsField(turn[list]) === undefined) throw new Error(`${name}: turn ${String(index + 1)} needs "${list}" (a list, maybe empty).`);
    }
    const outcome = objectField(turn['outcome']);
    if (objectsField(outcome?.['parts']) === undefined || !Array.isArray(outcome?.['violations'])) {
      throw new Error(`${name}: turn ${String(index + 1)} needs "outcome" with "parts" and "violations".`);
    }
  });
  return fixture as unknown as ReplayFixture;
}

/**
 * Reads a fixture file (YAML or JSON).
 *
 * @throws Error when it cannot be read or is not a fixture.
 */
export async function readFixture(path: string): Promise<ReplayFixture> {
  return asFixture(parse(await readFile(path, 'utf8')) as unknown, path);
}

/** Writes `fixture` to `path`: JSON when the name ends in `.json`, YAML otherwise. */
export async function writeFixture(path: string, fixture: ReplayFixture): Promise<void> {
  const text = path.endsWith('.json') ? `${JSON.stringify(fixture, null, 2)}\n` : stringify(fixture, { lineWidth: 0 });
  await writeFile(path, text, 'utf8');
}
