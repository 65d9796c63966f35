/**
 * The outbox sweeper: hands to the outbound queue every inline send (see `inline-send.ts`) whose
 * process died between recording its intent and its outcome. Each worker process runs one; a pass
 * every `intervalMs` costs one script call when there is nothing to do. The queue's processor then
 * finds the intent without an outcome and applies the sender's rule for unconfirmed sends.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { runScript } from '../src/runtime/redis/redis-script.ts';
import { DROP_ENTRY, TAKE_EXPIRED } from './inline-send-scripts.ts';
import { outboxKeys } from './inline-send.ts';
import type { OutboundDelivery } from './outbound-types.ts';

/** Options of {@link startOutboxSweeper}. */
export interface OutboxSweeperOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** Time between passes, in milliseconds. */
  readonly intervalMs: number;
  /** Adds a delivery to its channel's queue (idempotent by its key). */
  readonly enqueue: (delivery: OutboundDelivery) => Promise<unknown>;
  /**
   * Told, before each hand-over, from when the dead process surely sent nothing more (epoch ms):
   * its lease (`leaseMs`, as `InlineSendOptions.leaseMs`) ran out, so its last renewal was a lease
   * ago and it died within a quarter lease of it (`DeliveryLedger.markSilent`, which lets a lookup
   * conclude sooner). Default: nobody is told.
   */
  readonly silence?: { readonly leaseMs: number; readonly mark: (idempotencyKey: string, atMs: number) => Promise<void> };
  readonly onError: (error: Error) => void;
}

/** Most entries taken in one pass. */
const BATCH = 50;

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

function parseDelivery(json: string): OutboundDelivery | undefined {
  try {
    const value = JSON.parse(json) as Partial<OutboundDelivery> | null;
    return typeof value?.channel === 'string' && typeof value.idempotencyKey === 'string' ? (value as OutboundDelivery) : undefined;
  } catch {
    return undefined;
  }
}

/** One pass: hands every expired entry to the queue; how many it handed over. */
export async function sweepOutbox(options: Omit<OutboxSweeperOptions, 'intervalMs' | 'onError'>): Promise<number> {
  const keys = outboxKeys(options.prefix);
  const reply = await runScript(options.redis, TAKE_EXPIRED, [keys.due, keys.deliveries, keys.pass(randomUUID())], [BATCH, 60_000]);
  const flat = Array.isArray(reply) ? (reply as unknown[]).map(String) : [];
  let handed = 0;
  for (let index = 0; index + 1 < flat.length; index += 2) {
    const key = flat[index] ?? '';
    const delivery = parseDelivery(flat[index + 1] ?? '');
    if (delivery !== undefined) {
      const { silence } = options;
      if (silence !== undefined) await silence.mark(key, Date.now() - Math.ceil((silence.leaseMs * 3) / 4));
      await options.enqueue(delivery);
      handed += 1;
    }
    await runScript(options.redis, DROP_ENTRY, [keys.due, keys.deliveries], [key]);
  }
  return handed;
}

/** Starts sweeping; the returned function stops it and waits for a pass under way. */
export function startOutboxSweeper(options: OutboxSweeperOptions): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      try {
        await sweepOutbox(options);
      } catch (thrown) {
        options.onError(toError(thrown));
      }
    });
  }, options.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
