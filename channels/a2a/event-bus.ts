/**
 * The SDK's `ExecutionEventBusManager` over Redis: on every web process, the bus of a task delivers
 * the events the worker appends to the task's stream (see `task-log.ts`), so a blocking
 * `SendMessage`, a stream or a `SubscribeToTask` on any process sees the task progress.
 *
 * Each bus is a local `DefaultExecutionEventBus`, fed by tailing the task's stream from the
 * snapshot's last event id at the moment the bus was made; a bus made for a task that has ended
 * delivers its terminal status at once (a caller that loaded the task just before it ended, as
 * `CancelTask` does, would otherwise wait for ever). One blocking reader connection per
 * manager reads every tailed stream at once (`XREAD BLOCK` over all of them); a stream joining
 * restarts that read with `CLIENT UNBLOCK` sent on the command connection. A bus is tailed only
 * while it has listeners. What the executor publishes on a bus (its first Task event) goes to the
 * local listeners only.
 *
 * A bus made by `createOrGetByTaskId` (the executor's) holds the stream's events back until the
 * executor published its first Task (or Message) on it, or returned: the SDK wants a Task first.
 *
 * Settling: `settleByTaskId` always takes ownership. The manager calls `finished()` and forgets the
 * bus once it delivered a terminal state (completed, failed, canceled, rejected), or once the bus
 * had no listeners for `idleMs`.
 */
import { DefaultExecutionEventBus, type AgentExecutionEvent, type EventListener, type ExecutionEventBus, type ExecutionEventBusManager, type ExecutionEventName, type FinishedListener } from '@a2a-js/sdk/server';
import type { TaskState } from '@a2a-js/sdk';
import type { Redis } from 'ioredis';
import { duplicateRedis, isCluster } from '../../src/runtime/redis/redis-client.ts';
import { untilRedisReady } from '../../src/runtime/redis/redis-ready.ts';
import { isTerminalState, type TaskLog, type TaskLogEntry } from './task-log.ts';

/** Options of {@link createRedisEventBusManager}. */
export interface RedisEventBusManagerOptions {
  /** The command connection (start positions, `CLIENT UNBLOCK`). Not closed by the manager. */
  readonly redis: Redis;
  /** The task log whose streams are tailed; should use the same `redis`. */
  readonly log: TaskLog;
  /**
   * Longest wait of one blocking read, in ms. Default 10000 (a new stream interrupts it at once;
   * on a Redis Cluster, where `CLIENT UNBLOCK` cannot be routed, at most 100 is used).
   */
  readonly blockMs?: number;
  /** How long a bus without listeners is kept (and can resume tailing where it was), in ms. Default 30000. */
  readonly idleMs?: number;
  /** At most this many entries per stream and read. Default 100. */
  readonly readCount?: number;
  /** Called with read errors and errors thrown by listeners. Default: ignore. */
  readonly onError?: (error: Error) => void;
}

/** The manager, with the settle hook and a way to stop. */
export interface RedisEventBusManager extends ExecutionEventBusManager {
  /** The task's bus, made when there is none (a bus for any task id: it tails the task's stream). */
  getByTaskId(taskId: string): ExecutionEventBus;
  /** Always takes ownership (returns `true`); see the file comment for when the bus is settled. */
  settleByTaskId(taskId: string, eventBus: ExecutionEventBus, lastObservedState: TaskState | undefined): boolean;
  /** How many buses are alive (for tests and metrics). */
  readonly size: number;
  /** Stops reading, closes the reader connection, forgets every bus (without `finished()`). */
  close(): Promise<void>;
}

const DEFAULT_BLOCK_MS = 10_000;
const CLUSTER_BLOCK_MS = 100;
const DEFAULT_IDLE_MS = 30_000;
const UNBLOCK_ATTEMPTS = 50;
const RETRY_MS = 250;

/** A `DefaultExecutionEventBus` that counts its `event` listeners and knows the executor's first publish. */
class TailedBus extends DefaultExecutionEventBus {
  readonly #counts = new Map<EventListener, number>();
  readonly #onceWrappers = new Map<EventListener, EventListener[]>();
  readonly #onChange: () => void;
  readonly #onLocalStart: () => void;
  #listening = 0;

  constructor(onChange: () => void, onLocalStart: () => void) {
    super();
    this.#onChange = onChange;
    this.#onLocalStart = onLocalStart;
  }

  /** How many `event` listeners are attached. */
  get listening(): number {
    return this.#listening;
  }

  /** Publishes an event read from Redis. */
  deliver(event: AgentExecutionEvent): void {
    super.publish(event);
  }

  override publish(event: AgentExecutionEvent): void {
    super.publish(event);
    if (event.kind === 'task' || event.kind === 'message') this.#onLocalStart();
  }

  override on(eventName: 'event', listener: EventListener): this;
  override on(eventName: 'finished', listener: FinishedListener): this;
  override on(eventName: ExecutionEventName, listener: EventListener): this {
    if (eventName === 'finished') return super.on('finished', listener as FinishedListener);
    super.on('event', listener);
    this.#track(listener, 1);
    return this;
  }

  override off(eventName: 'event', listener: EventListener): this;
  override off(eventName: 'finished', listener: FinishedListener): this;
  override off(eventName: ExecutionEventName, listener: EventListener): this {
    if (eventName === 'finished') return super.off('finished', listener as FinishedListener);
    const wrapped = this.#onceWrappers.get(listener)?.pop();
    if (wrapped !== undefined) return this.off('event', wrapped);
    if ((this.#counts.get(listener) ?? 0) === 0) return this;
    super.off('event', listener);
    this.#track(listener, -1);
    return this;
  }

  override once(eventName: 'event', listener: EventListener): this;
  override once(eventName: 'finished', listener: FinishedListener): this;
  override once(eventName: ExecutionEventName, listener: EventListener): this {
    if (eventName === 'finished') return super.once('finished', listener as FinishedListener);
    const original = listener;
    const wrapped: EventListener = (event) => {
      const list = this.#onceWrappers.get(original);
      list?.splice(list.indexOf(wrapped), 1);
      if (list?.length === 0) this.#onceWrappers.delete(original);
      this.off('event', wrapped);
      original.call(this, event);
    };
    this.#onceWrappers.set(original, [...(this.#onceWrappers.get(original) ?? []), wrapped]);
    return this.on('event', wrapped);
  }

  override removeAllListeners(eventName?: ExecutionEventName): this {
    super.removeAllListeners(eventName);
    if (eventName === undefined || eventName === 'event') {
      this.#counts.clear();
      this.#onceWrappers.clear();
      this.#listening = 0;
      this.#onChange();
    }
    return this;
  }

  #track(listener: EventListener, delta: number): void {
    const count = (this.#counts.get(listener) ?? 0) + delta;
    if (count <= 0) this.#counts.delete(listener);
    else this.#counts.set(listener, count);
    this.#listening += delta;
    this.#onChange();
  }
}

interface Tail {
  readonly taskId: string;
  readonly bus: TailedBus;
  /** The stream id read up to; `undefined` until the start position is known. */
  cursor: string | undefined;
  /** Events read while the executor has not published its Task yet. */
  held: AgentExecutionEvent[] | undefined;
  done: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Creates the Redis-backed event bus manager.
 *
 * @example
 * const buses = createRedisEventBusManager({ redis, log });
 * const handler = new DefaultRequestHandler(card, store, executor, buses);
 * // on shutdown
 * await buses.close();
 */
export function createRedisEventBusManager(options: RedisEventBusManagerOptions): RedisEventBusManager {
  const { redis, log } = options;
  const canUnblock = !isCluster(redis);
  const blockMs = canUnblock ? (options.blockMs ?? DEFAULT_BLOCK_MS) : Math.min(options.blockMs ?? DEFAULT_BLOCK_MS, CLUSTER_BLOCK_MS);
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const readCount = options.readCount ?? 100;
  const report = (error: unknown): void => {
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  };

  const tails = new Map<string, Tail>();
  let closed = false;
  /** Read through a function: `closed` changes while the loop awaits. */
  const isClosed = (): boolean => closed;
  let reader: Redis | undefined;
  let readerId: number | undefined;
  let loop: Promise<void> | undefined;
  /** The read under way: its generation and the tasks it covers. */
  let reading: { readonly generation: number; readonly taskIds: ReadonlySet<string> } | undefined;
  let generation = 0;
  /** Resolves the loop's wait when it has nothing to read. */
  let wakeIdle: (() => void) | undefined;
  let unblockQueued = false;

  const tailed = (tail: Tail): boolean => !tail.done && tail.cursor !== undefined && tail.bus.listening > 0;

  function readerConnection(): Redis {
    if (reader === undefined) {
      const connection = duplicateRedis(redis, { enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
      connection.on('error', report);
      connection.on('close', () => {
        readerId = undefined;
      });
      reader = connection;
    }
    return reader;
  }

  /** Makes the reader pick up a stream that joined: wakes the loop, or interrupts its read. */
  function wake(): void {
    if (closed) return;
    loop ??= runLoop();
    if (wakeIdle !== undefined) {
      wakeIdle();
      return;
    }
    const current = reading;
    if (current === undefined || unblockQueued) return;
    if (![...tails.values()].some((tail) => tailed(tail) && !current.taskIds.has(tail.taskId))) return;
    unblockQueued = true;
    // Streams joining in the same tick share one CLIENT UNBLOCK.
    setImmediate(() => {
      unblockQueued = false;
      interrupt(current.generation).catch(report);
    });
  }

  /**
   * Interrupts the read of `target` generation. A `0` answer means it is not blocked yet (still on
   * its way) or already answered: try again until it blocks or another read replaced it.
   */
  async function interrupt(target: number): Promise<void> {
    if (!canUnblock) return;
    for (let attempt = 0; attempt < UNBLOCK_ATTEMPTS; attempt += 1) {
      const id = readerId;
      if (closed || reading?.generation !== target || id === undefined) return;
      if ((await redis.call('CLIENT', ['UNBLOCK', id])) === 1) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async function runLoop(): Promise<void> {
    while (!closed) {
      if (![...tails.values()].some(tailed)) {
        await new Promise<void>((resolve) => {
          wakeIdle = resolve;
        });
        wakeIdle = undefined;
        continue;
      }
      const connection = readerConnection();
      try {
        if (canUnblock && readerId === undefined) {
          await untilRedisReady(connection, blockMs);
          readerId = Number(await connection.call('CLIENT', ['ID']));
        }
        // Taken after the awaits above and just before the read: a stream that joined meanwhile
        // (when nothing could interrupt a read yet) is in it.
        const cursors = new Map<string, string>();
        for (const tail of tails.values()) if (tailed(tail) && tail.cursor !== undefined) cursors.set(tail.taskId, tail.cursor);
        if (cursors.size === 0) continue;
        generation += 1;
        reading = { generation, taskIds: new Set(cursors.keys()) };
        const read = await log.readMany(cursors, { blockMs, count: readCount, redis: connection });
        reading = undefined;
        for (const [taskId, entries] of read) dispatch(taskId, entries);
      } catch (error) {
        reading = undefined;
        if (isClosed()) return;
        report(error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  function dispatch(taskId: string, entries: readonly TaskLogEntry[]): void {
    const tail = tails.get(taskId);
    if (tail === undefined || tail.done) return;
    for (const entry of entries) {
      tail.cursor = entry.id;
      const event = entry.event as AgentExecutionEvent;
      if (tail.held !== undefined) {
        tail.held.push(event);
        continue;
      }
      if (deliver(tail, event)) return;
    }
  }

  /** Publishes a stream event on the bus; `true` when it ended the task (the bus is finished). */
  function deliver(tail: Tail, event: AgentExecutionEvent): boolean {
    try {
      tail.bus.deliver(event);
    } catch (error) {
      report(error);
    }
    if (event.kind !== 'statusUpdate' || !isTerminalState(event.data.status?.state)) return false;
    finish(tail);
    return true;
  }

  /** The executor published its Task, or returned: the events held back go out. */
  function release(tail: Tail): void {
    const held = tail.held;
    if (held === undefined) return;
    tail.held = undefined;
    for (const event of held) {
      if (deliver(tail, event)) return;
    }
  }

  function forget(tail: Tail): void {
    tail.done = true;
    clearTimeout(tail.idleTimer);
    tail.idleTimer = undefined;
    if (tails.get(tail.taskId) === tail) tails.delete(tail.taskId);
  }

  function finish(tail: Tail): void {
    if (tail.done) return;
    forget(tail);
    tail.bus.finished();
    tail.bus.removeAllListeners();
  }

  function listenersChanged(tail: Tail): void {
    if (tail.done) return;
    if (tail.bus.listening > 0) {
      clearTimeout(tail.idleTimer);
      tail.idleTimer = undefined;
      wake();
      return;
    }
    tail.idleTimer ??= setTimeout(() => {
      tail.idleTimer = undefined;
      if (tail.bus.listening === 0) finish(tail);
    }, idleMs).unref();
  }

  function start(tail: Tail): void {
    log.streamStart(tail.taskId).then(
      ({ lastEventId, ended }) => {
        if (tail.done) return;
        tail.cursor = lastEventId ?? '0-0';
        if (ended !== undefined) {
          // Ended before the bus started (e.g. between a CancelTask's load and its bus): nothing
          // more will come on the stream, so its terminal status is delivered (held for an executor's bus).
          const event = ended as AgentExecutionEvent;
          if (tail.held !== undefined) tail.held.push(event);
          else if (deliver(tail, event)) return;
        }
        wake();
      },
      (error: unknown) => {
        if (tail.done || closed) return;
        report(error);
        setTimeout(() => {
          if (!tail.done && !closed) start(tail);
        }, RETRY_MS).unref();
      },
    );
  }

  function tailOf(taskId: string, byExecutor: boolean): Tail {
    const existing = tails.get(taskId);
    if (existing !== undefined) return existing;
    // The bus calls back only after the tail exists.
    const bus = new TailedBus(
      () => {
        listenersChanged(tail);
      },
      () => {
        release(tail);
      },
    );
    const tail: Tail = { taskId, bus, cursor: undefined, held: byExecutor ? [] : undefined, done: false, idleTimer: undefined };
    tails.set(taskId, tail);
    if (!closed) {
      // The start position is asked now, before the caller's next command on the same connection
      // (the executor's enqueue, a resubscribe's load): no event after it is missed.
      start(tail);
      // The caller attaches its listeners right after; a bus nobody listens to goes idle.
      queueMicrotask(() => {
        listenersChanged(tail);
      });
    }
    return tail;
  }

  return {
    get size() {
      return tails.size;
    },

    createOrGetByTaskId(taskId) {
      return tailOf(taskId, true).bus;
    },

    getByTaskId(taskId) {
      return tailOf(taskId, false).bus;
    },

    cleanupByTaskId(taskId) {
      const tail = tails.get(taskId);
      if (tail === undefined) return;
      forget(tail);
      tail.bus.removeAllListeners();
    },

    settleByTaskId(taskId, eventBus, lastObservedState) {
      const tail = tails.get(taskId);
      if (tail === undefined || tail.bus !== eventBus) return eventBus instanceof TailedBus;
      // A terminal state the executor published itself (the SDK's failure when it throws).
      if (isTerminalState(lastObservedState)) {
        finish(tail);
        return true;
      }
      release(tail);
      return true;
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const tail of [...tails.values()]) {
        forget(tail);
        tail.bus.removeAllListeners();
      }
      wakeIdle?.();
      reader?.disconnect();
      await loop;
    },
  };
}
