/**
 * The two ways the bench offers load to a {@link Target}: a closed loop (every conversation sends
 * its next message as soon as the previous one was accepted: saturation) and an open loop (arrivals
 * on a fixed timer schedule, whatever the answers do: latency at a given load).
 */
import { delivered, LatencyTracker, median, type Summary } from './stats.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { watchGc, type GcDuring } from './gc-watch.ts';

/** Something messages are sent to and whose answers are observed: switchboard or the baseline. */
export interface Target {
  /** How many conversations it has ready (sessions, subscriptions). */
  readonly conversations: number;
  /** Sends message `key` into conversation `index`; resolves once it was accepted (HTTP 202, job added). */
  send(index: number, key: string): Promise<void>;
  /** Routes the answers seen from now on to `tracker`. */
  track(tracker: LatencyTracker): void;
  /** Closes what the target opened. */
  close(): Promise<void>;
}

/** How long a run may take to deliver, in ms: generous, so only a stuck run fails. */
function deadline(messages: number): number {
  return 30_000 + messages * 20;
}

/**
 * Closed loop: `messages` spread over every conversation, each conversation sending its next
 * message once the previous POST was accepted. Keys are `<run>-<conversation>-<n>`.
 */
export async function closedLoop(target: Target, run: string, messages: number): Promise<Summary> {
  const tracker = new LatencyTracker(messages);
  target.track(tracker);
  const perConversation = Math.ceil(messages / target.conversations);
  tracker.started(performance.now());
  await Promise.all(
    Array.from({ length: target.conversations }, async (_, index) => {
      for (let n = 0; n < perConversation && index * perConversation + n < messages; n += 1) {
        const key = `${run}-${index}-${n}`;
        tracker.accepted(key, performance.now());
        await target.send(index, key);
      }
    }),
  );
  await delivered(tracker, deadline(messages), run);
  return tracker.summary();
}

/** The saturation throughput of a target: the median of some closed-loop runs. */
export interface Saturation {
  /** Median of `runs`, msg/s. */
  readonly throughput: number;
  /** Each run's throughput, msg/s, in order. */
  readonly runs: readonly number[];
  /** Messages of all runs together. */
  readonly messages: number;
}

/** `repeats` closed-loop runs of `messages` each, one after the other; their median throughput. */
export async function saturate(target: Target, messages: number, repeats: number): Promise<Saturation> {
  const runs: number[] = [];
  for (let run = 0; run < repeats; run += 1) runs.push((await closedLoop(target, `sat${run}`, messages)).throughput);
  return { throughput: median(runs), runs, messages: messages * repeats };
}

/** How late the event loop of the bench process ran during an open-loop run, in ms. */
export interface LoopDelay {
  readonly loopDelayP99: number;
  readonly loopDelayMax: number;
}

/**
 * Open loop: `warmUp + messages` arrivals at `rate` per second on a fixed schedule (arrival i at
 * start + i / rate, sent by a timer, never waiting for answers), round robin over the conversations.
 * Latency runs from the send of the POST to the answer; the first `warmUp` are left out.
 */
export async function openLoop(target: Target, run: string, rate: number, messages: number, warmUp: number): Promise<Summary & LoopDelay & GcDuring> {
  const total = warmUp + messages;
  const tracker = new LatencyTracker(total, { warmUp });
  // How late this process's event loop ran during the run: the part of the latency tail that is
  // this process being busy (the load generator and the system share it).
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const gcs = watchGc();
  target.track(tracker);
  const sends: Promise<void>[] = [];
  let failure: Error | undefined;
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
      for (; sent < due; sent += 1) {
        const key = `${run}-${sent}`;
        tracker.accepted(key, performance.now());
        sends.push(target.send(sent % target.conversations, key).catch((error: unknown) => { failure ??= error instanceof Error ? error : new Error(String(error)); }));
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(sends);
  if (failure !== undefined) throw failure;
  await delivered(tracker, deadline(total), run);
  loopDelay.disable();
  return { ...tracker.summary(), loopDelayP99: loopDelay.percentile(99) / 1e6, loopDelayMax: loopDelay.max / 1e6, ...gcs() };
}

/** Sends `turns` messages to every conversation, one round at a time: each waits for the previous round's answers. */
export async function roundsOfTurns(target: Target, run: string, turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) {
    const tracker = new LatencyTracker(target.conversations);
    target.track(tracker);
    await Promise.all(
      Array.from({ length: target.conversations }, async (_, index) => {
        const key = `${run}-${index}-${turn}`;
        tracker.accepted(key, performance.now());
        await target.send(index, key);
      }),
    );
    await delivered(tracker, deadline(target.conversations), `${run} turn ${turn + 1}`);
  }
}
