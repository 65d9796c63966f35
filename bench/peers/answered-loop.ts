/**
 * Saturation as people load a bot: `inFlight` senders, each posting its next message once the
 * previous one was answered (not merely acknowledged), so the systems are offered the same load
 * whether they answer the webhook before or after they did the work, and no backlog grows past
 * `inFlight` messages inside either.
 */
import { delivered, LatencyTracker, type Summary } from '../stats.ts';
import type { SlackTarget } from './slack-target.ts';

/** How long a run may take, ms: generous, so only a stuck run fails. */
const deadline = (messages: number): number => 30_000 + messages * 50;

/** Sends `messages` keyed `<run>x<n>` with `inFlight` at a time; throughput from the first send to the last answer. */
export async function answeredLoop(target: SlackTarget, run: string, messages: number, inFlight: number): Promise<Summary> {
  const tracker = new LatencyTracker(messages);
  target.track(tracker);
  let next = 0;
  tracker.started(performance.now());
  const senders = Promise.all(
    Array.from({ length: Math.min(inFlight, messages) }, async () => {
      while (next < messages) {
        const key = `${run}x${next}`;
        next += 1;
        const answered = target.whenAnswered(key);
        tracker.accepted(key, performance.now());
        await target.send(0, key);
        await answered;
      }
    }),
  );
  await Promise.all([senders, delivered(tracker, deadline(messages), run)]);
  return tracker.summary();
}
