/**
 * What the outbound queues carry and what a channel's sender implements. Types only, so channel
 * code can use them without pulling in BullMQ.
 */
import type { Destination } from '../src/runtime/injection.ts';

/** One message part on its way to one destination. */
export interface OutboundDelivery {
  /** Channel id; picks the outbound queue `outbound-<channel>` and its sender. */
  readonly channel: string;
  readonly destination: Destination;
  /**
   * Stable key of (turn, part, destination), e.g. from {@link deliveryIdempotencyKey}: the same
   * key is enqueued and sent at most once. Senders should pass it to providers that take one
   * (Twilio `I-Twilio-Idempotency-Token`, an SMTP Message-ID).
   */
  readonly idempotencyKey: string;
  /** The rendered message, in the channel's own shape. Must be JSON-serialisable. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Proof of a successful send, stored in the delivery ledger and as the job's return value. */
export interface SendReceipt {
  /** The provider's id of the sent message (Twilio SID, Slack `ts`, SMTP Message-ID), if any. */
  readonly providerMessageId?: string;
  /** Other facts worth keeping; must be JSON-serialisable. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A channel's rate limit, enforced across every worker of its outbound queue. */
export interface ChannelRateLimit {
  /** Sends allowed per window. */
  readonly max: number;
  /** Window length, in milliseconds. */
  readonly durationMs: number;
}

/** How one channel sends. */
export interface ChannelSender {
  /**
   * Sends one delivery. Resolve only once the provider accepted the message; reject with a
   * `DeliveryError` (see `delivery-error.ts`) to say what went wrong. Any other rejection is a
   * retryable failure. A rejection means "not sent": do not reject after the provider accepted.
   */
  send(delivery: OutboundDelivery): Promise<SendReceipt>;
  /** Rate limit of the channel. Default: none. */
  readonly rateLimit?: ChannelRateLimit;
  /**
   * Sends in flight at once per worker process. Default 1, which keeps the parts of a reply in
   * order (retries aside); raise it for channels where order does not matter.
   */
  readonly concurrency?: number;
  /**
   * Whether the provider itself drops a repeated send carrying the same idempotency key. When a
   * worker died between recording the intent to send and recording the receipt, the outcome is
   * unknown: with `true` the delivery is sent again (the provider dedupes); with `false` it is
   * failed with `delivery.failed` and kept for an operator, so nothing is ever sent twice.
   * Default `false`.
   */
  readonly providerIdempotent?: boolean;
}

/**
 * The idempotency key of a (turn, part, destination): unambiguous whatever characters the parts
 * contain.
 *
 * @example
 * deliveryIdempotencyKey('turn-7', 2, { channel: 'sms', address: '+15550100' });
 */
export function deliveryIdempotencyKey(turnId: string, part: string | number, destination: Destination): string {
  return JSON.stringify([turnId, String(part), destination.channel, destination.address]);
}
