/**
 * The inline first attempt of a delivery: the process that has a delivery ready (the turn worker
 * at settlement) sends it at once, without a queue hop, when nothing stands in the way, and hands
 * it to the outbound queue otherwise.
 *
 * One script claims the send: the ledger records the intent (`sending`, as the queue's processor
 * does), the destination's and the channel's limits are checked against the same Redis state the
 * queue uses, and the delivery is written to an outbox with a lease. The sender is called; a
 * second script records the receipt and drops the outbox entry. So a happy send costs two round
 * trips and no BullMQ job.
 *
 * When it cannot go at once it goes to the queue, which keeps every guarantee of
 * `outbound-queue.ts`:
 * - over the destination's limit, the channel's or its method's, or the channel paused after a 429: the job
 *   joins the destination's line, so later deliveries to it cannot overtake it;
 * - the send failed: the failure is recorded in the ledger and the job is added with the retry
 *   delay the failure calls for (a permanent failure is recorded as final at once);
 * - the process died between the intent and the receipt: the outbox entry outlives its lease and
 *   the sweeper (`outbox-sweeper.ts`) hands it to the queue, whose processor finds the intent
 *   without an outcome and applies the sender's rule for unconfirmed sends.
 *
 * The lease is short and renewed: while a process has sends under way, one command every quarter
 * of the lease pushes all their deadlines on, so a slow provider call is never taken for a dead
 * one, and a dead process's sends move on within a lease and a sweep.
 */
import type { Redis } from 'ioredis';
import { runScript } from '../src/runtime/redis/redis-script.ts';
import { summarizeDeliveryError, DeliveryError } from './delivery-error.ts';
import { deliveryLedgerKey } from './delivery-ledger.ts';
import { destinationRateKey } from './destination-rate-limit.ts';
import { CLAIM_INLINE, DROP_ENTRY, RENEW_LEASES, SETTLE_INLINE } from './inline-send-scripts.ts';
import { outboundJobId } from './job-ids.ts';
import type { ChannelSender, DeliveryErrorSummary, OutboundDelivery, SendReceipt } from './outbound-types.ts';
import { limitArgs, sharedLimitsOf, sharedWindowArgs, sharedWindowKeys } from './send-windows.ts';

/** How one inline attempt ended. */
export type InlineOutcome =
  /** Sent now; the receipt is recorded. */
  | { readonly kind: 'sent'; readonly receipt: SendReceipt }
  /** Sent before (the ledger has its receipt), or being sent inline by another process. */
  | { readonly kind: 'duplicate' }
  /**
   * Not sent now: the caller adds it to the queue, after `delayMs` when given; with `error` (the
   * attempt failed) it then releases the outbox entry.
   */
  | { readonly kind: 'queue'; readonly delayMs?: number; readonly error?: DeliveryErrorSummary }
  /** Failed for good (a permanent provider error); the ledger has the failure. Release it once recorded. */
  | { readonly kind: 'failed'; readonly error: DeliveryErrorSummary };

/** Options of {@link createInlineSend}. */
export interface InlineSendOptions {
  /** Client for the scripts. Never closed here. */
  readonly redis: Redis;
  /** Key prefix (checked by the caller). */
  readonly prefix: string;
  /**
   * How long a started inline send is kept from the sweeper without a renewal, in ms. The process
   * renews the leases of all its sends under way in one command every quarter of this.
   */
  readonly leaseMs: number;
  /** Lifetime of ledger entries, in ms (as the queue's ledger). */
  readonly ledgerTtlMs: number;
  /** How long past its slot a delivery held back keeps its place in the destination's line, in ms. */
  readonly lineGraceMs: number;
  /** The delay before a failed inline attempt is tried again by the queue, in ms. */
  readonly retryDelayMs: (error: Error, retryAfterMs: number | undefined) => number;
}

/** The outbox keys: deadlines (zset) and deliveries (hash), both keyed by idempotency key, and a sweep pass's record of what it took. */
export function outboxKeys(prefix: string): { readonly due: string; readonly deliveries: string; readonly pass: (passId: string) => string } {
  return { due: `${prefix}:outbox:due`, deliveries: `${prefix}:outbox:deliveries`, pass: (passId) => `${prefix}:outbox:pass:${passId}` };
}

function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** The inline attempt; see the file's comment. */
export interface InlineSend {
  /** Tries `delivery` now with `sender`; says what happened. */
  attempt(delivery: OutboundDelivery, sender: ChannelSender): Promise<InlineOutcome>;
  /**
   * Drops the outbox entry of a failed attempt once the queue has the delivery (or the failure is
   * final). Until then the sweeper would hand it to the queue after its lease.
   */
  release(idempotencyKey: string): Promise<void>;
  /**
   * Stops renewing the lease of a failed attempt that could not be handed to the queue (Redis
   * failed meanwhile): its entry then waits for the sweeper.
   */
  abandon(idempotencyKey: string): void;
}

/** The sends under way of one process, their leases renewed together while there are any. */
function leaseRenewer(redis: Redis, dueKey: string, leaseMs: number): { hold(key: string): void; drop(key: string): void } {
  const held = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const renew = (): void => {
    // A renewal that fails lets the lease run out: the sweeper then hands the send to the queue.
    if (held.size > 0) runScript(redis, RENEW_LEASES, [dueKey], [leaseMs, ...held]).catch(() => undefined);
  };
  return {
    hold(key) {
      held.add(key);
      if (timer !== undefined) return;
      timer = setInterval(renew, Math.max(50, Math.floor(leaseMs / 4)));
      timer.unref();
    },
    drop(key) {
      held.delete(key);
      if (held.size > 0 || timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
    },
  };
}

/** Creates the inline attempt on `options.redis`. */
export function createInlineSend(options: InlineSendOptions): InlineSend {
  const { redis, prefix, ledgerTtlMs } = options;
  const outbox = outboxKeys(prefix);
  const leases = leaseRenewer(redis, outbox.due, options.leaseMs);

  const claim = async (delivery: OutboundDelivery, sender: ChannelSender): Promise<unknown[]> => {
    const { channel, idempotencyKey } = delivery;
    const address = delivery.destination.address;
    const shared = sharedLimitsOf(sender, delivery);
    const rate = (part: string): string => destinationRateKey(prefix, channel, address, part);
    const keys = [
      deliveryLedgerKey(prefix, idempotencyKey), outbox.due, outbox.deliveries,
      rate('sent'), rate('line'), rate('leases'), rate('seq'),
      ...sharedWindowKeys(prefix, channel, shared),
    ];
    const args = [
      idempotencyKey, JSON.stringify(delivery), options.leaseMs, ledgerTtlMs,
      ...limitArgs(sender.destinationRateLimit), outboundJobId(idempotencyKey), options.lineGraceMs,
      ...sharedWindowArgs(shared),
    ];
    const reply = await runScript(redis, CLAIM_INLINE, keys, args);
    return Array.isArray(reply) ? (reply as unknown[]) : [];
  };

  const settle = async (key: string, outcome: 'sent' | 'failed', detail: string): Promise<void> => {
    await runScript(redis, SETTLE_INLINE, [deliveryLedgerKey(prefix, key), outbox.due, outbox.deliveries], [key, outcome, detail, ledgerTtlMs]);
  };

  return {
    async attempt(delivery, sender) {
      // The sender's own reads leave with the claim (one socket write), rather than after it.
      sender.prefetch?.(delivery);
      const [kind] = await claim(delivery, sender);
      if (kind === 'sent' || kind === 'inflight') return { kind: 'duplicate' };
      if (kind !== 'go') return { kind: 'queue' };
      const key = delivery.idempotencyKey;
      leases.hold(key);
      let receipt: SendReceipt;
      try {
        receipt = await sender.send(delivery);
      } catch (thrown) {
        const error = toError(thrown);
        const summary = summarizeDeliveryError(error);
        // The entry stays, renewed, until the caller releases it; unless the failure cannot be
        // recorded either: then it is left to run out, for the sweeper.
        await settle(key, 'failed', error.message).catch((unrecorded: unknown) => {
          leases.drop(key);
          throw unrecorded;
        });
        if (error instanceof DeliveryError && error.permanent) return { kind: 'failed', error: summary };
        return { kind: 'queue', delayMs: options.retryDelayMs(error, summary.retryAfterMs), error: summary };
      }
      try {
        await settle(key, 'sent', JSON.stringify(receipt));
      } finally {
        leases.drop(key);
      }
      return { kind: 'sent', receipt };
    },
    async release(idempotencyKey) {
      try {
        await runScript(redis, DROP_ENTRY, [outbox.due, outbox.deliveries], [idempotencyKey]);
      } finally {
        leases.drop(idempotencyKey);
      }
    },
    abandon(idempotencyKey) {
      leases.drop(idempotencyKey);
    },
  };
}
