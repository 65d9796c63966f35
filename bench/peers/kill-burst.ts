/**
 * A crash in the middle of a burst, with Slack's redelivery: events are posted on a fixed schedule;
 * once `killAfter` of them were sent the system's process gets SIGKILL and is started again (same
 * Redis, same key prefix) while the schedule goes on. Slack redelivers an event it got no 2xx for
 * (refused, reset, or no answer in three seconds) up to three times, with `X-Slack-Retry-Num`; here
 * the three redeliveries follow each other once the burst is over and the system is back (Slack
 * spaces them over minutes). Then the bench waits for quiet (35 s without an answer) and counts, from the `chat.postMessage`
 * calls the fake Slack received, the events never answered and those answered more than once.
 */
import type { SlackAnswers } from './slack-answers.ts';
import { dmDelivery, type SlackPoster } from './slack-events.ts';
import type { SystemProcess } from './system-process.ts';

/** The shape of the burst. */
export interface KillPlan {
  /** Names the run's events (letters and digits): keys are `<label>x<n>`. */
  readonly label: string;
  readonly events: number;
  /** Events a second of the burst. */
  readonly rate: number;
  /** SIGKILL once this many were sent. */
  readonly killAfter: number;
  /** The DM of the first event; each event has a DM of its own (the next ones), new to the system. */
  readonly firstDm: number;
}

/** What became of the burst. */
export interface KillFigures {
  readonly events: number;
  /** Events acknowledged (2xx) on their first delivery. */
  readonly ackedFirst: number;
  /** Events redelivered at least once, and redeliveries in all. */
  readonly retried: number;
  readonly retries: number;
  /** Events still not acknowledged after Slack's three redeliveries (Slack gives up on them). */
  readonly neverAcked: number;
  /** Events never answered: acknowledged or redelivered, and no `chat.postMessage` for them. */
  readonly lost: number;
  /** Events answered more than once. */
  readonly twice: number;
  /** From SIGKILL to the new process ready, ms. */
  readonly downMs: number;
  /** From the new process ready to the last answer, ms. */
  readonly recoveryMs: number;
}

/** Slack's redeliveries of an event it got no 2xx for. */
const SLACK_RETRIES = 3;

/**
 * Quiet: no answer for `QUIET_MS`. It is long, for both systems: a system that recovers work from
 * Redis answers only once its locks expire and its stalled jobs are taken again (seconds), and
 * switchboard's Slack sender, finding a post whose send was cut short, waits until Slack would list
 * it (30 s after the attempt) before it decides whether it went out, and sends it if not: an
 * answer that comes then, or twice then, must still be seen. Never longer than `DEADLINE_MS`
 * after the redeliveries.
 */
const QUIET_MS = 35_000;
const DEADLINE_MS = 60_000;
const POLL_MS = 100;

const acknowledged = (status: number): boolean => status >= 200 && status <= 299;

/** Waits until the answers are quiet (see {@link QUIET_MS}). */
async function untilQuiet(answers: SlackAnswers, since: number): Promise<void> {
  const deadline = since + DEADLINE_MS;
  for (;;) {
    const now = performance.now();
    if (now - Math.max(since, answers.lastAnswerAt() ?? since) >= QUIET_MS || now >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Runs the burst against `system`, restarting it with `restart`; resolves to the figures and the
 * process now running (the caller stops it).
 */
export async function killDuringBurst(
  plan: KillPlan,
  system: SystemProcess,
  restart: () => Promise<SystemProcess>,
  poster: SlackPoster,
  answers: SlackAnswers,
): Promise<{ readonly figures: KillFigures; readonly system: SystemProcess }> {
  const deliveries = Array.from({ length: plan.events }, (_, index) => dmDelivery(`${plan.label}x${index}`, plan.firstDm + index));
  const acked = new Set<string>();
  let ackedFirst = 0;
  const sends: Promise<void>[] = [];
  let restarted: Promise<{ readonly next: SystemProcess; readonly downMs: number; readonly readyAt: number }> | undefined;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    let sent = 0;
    const tick = (): void => {
      const due = Math.min(plan.events, Math.floor(((performance.now() - start) * plan.rate) / 1000) + 1);
      for (; sent < due; sent += 1) {
        const delivery = deliveries[sent];
        if (delivery === undefined) continue;
        sends.push(poster.post(delivery).then((status) => {
          if (!acknowledged(status)) return;
          acked.add(delivery.key);
          ackedFirst += 1;
        }));
        if (sent + 1 === plan.killAfter) {
          restarted = (async () => {
            const killedAt = performance.now();
            await system.kill();
            const next = await restart();
            poster.retarget(next.url);
            const readyAt = performance.now();
            return { next, downMs: readyAt - killedAt, readyAt };
          })();
          // Awaited below, once the burst is sent; a failed restart must not count as unhandled meanwhile.
          void restarted.catch(() => undefined);
        }
      }
      if (sent >= plan.events) resolve();
      else setTimeout(tick, Math.max(0, start + (sent * 1000) / plan.rate - performance.now()));
    };
    tick();
  });
  await Promise.all(sends);
  if (restarted === undefined) throw new Error('the burst ended before the kill');
  const { next, downMs, readyAt } = await restarted;
  const retriedKeys = new Set<string>();
  let retries = 0;
  for (let attempt = 1; attempt <= SLACK_RETRIES; attempt += 1) {
    const pending = deliveries.filter((delivery) => !acked.has(delivery.key));
    retries += pending.length;
    await Promise.all(pending.map(async (delivery) => {
      retriedKeys.add(delivery.key);
      if (acknowledged(await poster.post(delivery, attempt))) acked.add(delivery.key);
    }));
  }
  await untilQuiet(answers, performance.now());
  const answered = deliveries.map((delivery) => answers.answersTo(delivery.key));
  const figures: KillFigures = {
    events: plan.events,
    ackedFirst,
    retried: retriedKeys.size,
    retries,
    neverAcked: deliveries.filter((delivery) => !acked.has(delivery.key)).length,
    lost: answered.filter((count) => count === 0).length,
    twice: answered.filter((count) => count > 1).length,
    downMs,
    recoveryMs: Math.max(0, (answers.lastAnswerAt() ?? readyAt) - readyAt),
  };
  return { figures, system: next };
}
