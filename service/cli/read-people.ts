/**
 * The people of an app's `switchboard.yaml`, read on their own (no actors, no tools) for commands
 * that only need them, such as `switchboard invite`.
 */
import { AppProblems, appInvalidError } from '../../src/runtime/app/app-problems.ts';
import type { Person } from '../../src/runtime/app/app-types.ts';
import { readSwitchboardFile } from '../../src/runtime/app/read-switchboard-file.ts';
import { resolvePeople } from '../../src/runtime/app/resolve-people.ts';

/**
 * Reads and checks the people of the app in `dir`.
 *
 * @throws SwitchboardError `app.invalid` when `switchboard.yaml` or its people have problems.
 */
export async function readPeople(dir: string): Promise<Person[]> {
  const problems = new AppProblems();
  const config = await readSwitchboardFile(dir, problems);
  const people = config === undefined ? [] : resolvePeople(config, problems);
  if (problems.size > 0) throw appInvalidError(dir, problems.list());
  return people;
}
