/**
 * `replayFixture` of `switchboard/testing`: a conversation exported by `switchboard replay
 * --export` run again as a regression test, on the test bot's app as it is now.
 */
import { readFixture } from '../replay/fixture-file.ts';
import type { ReplayFixture } from '../replay/fixture-types.ts';
import { replayOn, type ReplayOptions, type ReplayReport } from '../replay/replay-fixture.ts';
import { partsOfBot } from './bot-core.ts';
import type { TestBot } from './test-bot-types.ts';

/**
 * Replays a recorded conversation (a fixture, or the path of its file) on `bot`: the model answers
 * with the recorded responses, every tool with its recorded result (no handler runs), approvals are
 * decided as they were. Resolves to where the run departs from the recording: no departure means
 * the app's current actors and tools still do what they did.
 *
 * @throws Error when the file is not a fixture.
 *
 * @example
 * const bot = await startTestBot({ app: new URL('..', import.meta.url) });
 * const report = await replayFixture(bot, new URL('./booking.replay.yaml', import.meta.url).pathname);
 * assert.deepEqual(report.departures, []);
 */
export async function replayFixture(bot: TestBot, fixture: ReplayFixture | string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const loaded = typeof fixture === 'string' ? await readFixture(fixture) : fixture;
  return replayOn(partsOfBot(bot), loaded, options);
}
