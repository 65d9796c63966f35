/**
 * A system's Slack path as a bench {@link Target} (bench/load.ts): each message is a signed DM
 * event posted to the system's `/slack/events`, accepted when the system answers 2xx, and
 * delivered when the fake Slack Web API receives the `chat.postMessage` that answers it. An event
 * that got no 2xx is delivered again as Slack does (`X-Slack-Retry-Num`, up to three times).
 *
 * Each message goes to the next DM of a rotating pool (`pool` DMs, each with its one user), so two
 * messages of one DM are never handled at once as long as fewer than `pool` are in flight: the
 * Chat SDK's default (`concurrency: 'drop'`) drops a DM message that arrives while the previous one
 * of the same DM is still being handled (its Slack adapter makes a DM's top-level messages one
 * thread), and the bench measures answered messages only.
 */
import type { Target } from '../load.ts';
import type { SlackAnswers } from './slack-answers.ts';
import { dmDelivery, type SlackPoster } from './slack-events.ts';

/** A {@link Target} that also tells when one message was answered. */
export interface SlackTarget extends Target {
  /** Resolves when the answer to `key` reaches the fake Slack; call it before sending `key`. */
  whenAnswered(key: string): Promise<void>;
  /** Deliveries Slack would have made again so far (no 2xx: e.g. a kept-alive connection closed as it was used). */
  redeliveries(): number;
}

/** Slack's redeliveries of an event it got no 2xx for. */
const SLACK_RETRIES = 3;

/** A target over a pool of `pool` DMs (DM `offset` … `offset + pool - 1`), used in turn. */
export function createSlackTarget(poster: SlackPoster, answers: SlackAnswers, pool: number, offset = 0): SlackTarget {
  const waiting = new Map<string, () => void>();
  let sent = 0;
  let redelivered = 0;
  const settle = (key: string): void => {
    waiting.get(key)?.();
    waiting.delete(key);
  };
  answers.listen(settle);
  return {
    conversations: pool,
    async send(_index, key) {
      const dm = offset + (sent % pool);
      sent += 1;
      const delivery = dmDelivery(key, dm);
      let status = 0;
      for (let attempt = 0; attempt <= SLACK_RETRIES; attempt += 1) {
        if (attempt > 0) redelivered += 1;
        status = await poster.post(delivery, attempt);
        if (status >= 200 && status <= 299) return;
      }
      throw new Error(`the event of ${key} was answered ${status === 0 ? 'with nothing' : String(status)}, ${SLACK_RETRIES} redeliveries included`);
    },
    track(tracker) {
      answers.listen((key, at) => {
        tracker.delivered(key, at);
        settle(key);
      });
    },
    redeliveries: () => redelivered,
    whenAnswered(key) {
      return new Promise<void>((resolve) => { waiting.set(key, resolve); });
    },
    close() {
      answers.listen(undefined);
      return Promise.resolve();
    },
  };
}
