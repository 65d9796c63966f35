/**
 * What the outbound queues carry and what a channel's sender implements. Types only, so channel
 * code can use them without pulling in BullMQ.
 */
import type { ErrorCode } from '../src/protocol/errors.ts';
import type { Destination } from '../src/runtime/injection.ts';

/** Where a delivery came from, so each attempt can be logged in that session's event log. */
export interface DeliveryTrace {
  /** Session whose event log receives the delivery's attempts. */
  readonly sessionId: string;
  /** Turn that produced the delivery, when there was one. */
  readonly turnId?: string;
}

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
  /** The session (and turn) this delivery belongs to; carried unchanged through every attempt. */
  readonly trace?: DeliveryTrace;
}

/** Proof of a successful send, stored in the delivery ledger and as the job's return value. */
export interface SendReceipt {
  /** The provider's id of the sent message (Twilio SID, Slack `ts`, SMTP Message-ID), if any. */
  readonly providerMessageId?: string;
  /** Other facts worth keeping; must be JSON-serialisable. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A rate limit: at most `max` sends in any window of `durationMs`. */
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
  /**
   * Starts the reads {@link ChannelSender.send} makes before it calls the provider (an opt-out
   * list, a contact's service window) for `delivery`. The outbound step calls it in the same tick
   * as the script that claims the delivery, so those reads leave in the claim's socket write
   * instead of a round trip of their own after it; `send` is then given the same delivery object.
   * It may be called for a delivery that is then not sent (the claim found it sent, or held it
   * back), and `send` may be called without it, or well after it (the claim settled an unknown
   * outcome with the provider first): `send` must not trust an old read (`prefetchedRead` reads
   * again past its age). Must not throw. Default: none.
   */
  prefetch?(delivery: OutboundDelivery): void;
  /**
   * Rate limit of the whole channel (a fixed window counted in Redis), across every worker, for
   * inline and queued sends alike. Default: none.
   */
  readonly rateLimit?: ChannelRateLimit;
  /**
   * Rate limits of the provider's methods, by method name (e.g. Slack's tiers: `chat.update` 50
   * a minute), across every worker and every conversation, as fixed windows. A delivery over its
   * method's limit waits in its destination's line like one over the destination's limit, so
   * later deliveries to that destination do not overtake it. Used with {@link ChannelSender.methodOf}.
   * Default: none.
   */
  readonly methodRateLimits?: Readonly<Record<string, ChannelRateLimit>>;
  /** The provider method `delivery` will call, to find its limit in {@link ChannelSender.methodRateLimits}. */
  methodOf?(delivery: OutboundDelivery): string | undefined;
  /**
   * Rate limit per destination (`channel` + `destination.address`), across every worker, as a
   * sliding window: e.g. `{ max: 1, durationMs: 1000 }` for Slack's one message a second per
   * channel, or an SMS sender number's one a second. A delivery over the limit waits in the delayed
   * set until its turn, without using up an attempt and without holding up other destinations.
   * Deliveries held back for one destination go out in the order they were first held.
   * Default: none.
   */
  readonly destinationRateLimit?: ChannelRateLimit;
  /**
   * Queued sends in flight at once per worker process. Sends to one destination still go one at a
   * time, in queue order (retries aside), so raising it never reorders a conversation. Default 8.
   */
  readonly concurrency?: number;
  /**
   * Whether the provider itself drops a repeated send carrying the same idempotency key. When a
   * worker died between recording the intent to send and recording the receipt, the outcome is
   * unknown: with `true` the delivery is sent again (the provider dedupes); with `false` the
   * provider is asked first ({@link ChannelSender.findSent}), and what it cannot tell is left to
   * {@link ChannelSender.unconfirmed}. Default `false`.
   */
  readonly providerIdempotent?: boolean;
  /**
   * Asks the provider whether a delivery whose earlier send has no recorded outcome (a worker died
   * between the intent and the receipt) went out. Called only in that case, at most once per
   * attempt, never for a provider-idempotent sender. `sent` completes the delivery with the receipt
   * found, without sending; `absent` sends it; `unknown` leaves it to {@link ChannelSender.unconfirmed};
   * `pending` asks again after `retryAfterMs`. A rejection is a retryable failure of the attempt
   * (on the last attempt, the delivery fails with reason `unconfirmed`). Default: none, which is
   * `unknown` for every delivery.
   */
  findSent?(delivery: OutboundDelivery, intent: SendIntent): Promise<SentLookup>;
  /**
   * What happens to a delivery whose earlier outcome is unknown and that the provider cannot be asked
   * about (no `findSent`, or it answered `unknown`): `at-most-once` fails it with reason
   * `unconfirmed` (shown on /admin, and the person is told on their next turn); `at-least-once`
   * sends it again, accepting a possible duplicate. Default `at-most-once`.
   */
  readonly unconfirmed?: UnconfirmedRule;
}

/** See {@link ChannelSender.unconfirmed}. */
export type UnconfirmedRule = 'at-most-once' | 'at-least-once';

/** The earlier send that {@link ChannelSender.findSent} looks for. */
export interface SendIntent {
  /** When the earlier attempt recorded its intent to send, in epoch milliseconds. */
  readonly since: number;
  /**
   * From when the earlier attempt's process surely sent nothing more, in epoch milliseconds: set
   * when the outbox sweeper found it dead (its lease renewals stopped). Anything it sent was on its
   * way to the provider by then.
   */
  readonly silentSince?: number;
}

/**
 * What {@link ChannelSender.findSent} found:
 * - `sent`: the provider has a message that is this delivery (it carries our key, or matches it
 *   closely enough in content, recipient and time); `receipt` describes it;
 * - `absent`: the provider would show the message by now and does not: sending is safe (also the
 *   answer for a payload whose repeat changes nothing, such as an edit to the same text);
 * - `unknown`: the provider cannot tell (no record kept, a scope missing); `reason` says why;
 * - `pending`: too early to tell (the earlier call may still be under way): ask again later.
 */
export type SentLookup =
  | { readonly kind: 'sent'; readonly receipt: SendReceipt }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unknown'; readonly reason: string }
  | { readonly kind: 'pending'; readonly retryAfterMs: number; readonly reason: string };

/** What went wrong in one attempt, in a JSON-serialisable shape. */
export interface DeliveryErrorSummary {
  /** `delivery.permanent`, `delivery.rate_limited`, `delivery.failed`, or another error's own code. */
  readonly code: ErrorCode;
  readonly message: string;
  /** Earliest retry the provider asked for, in milliseconds from the failure. */
  readonly retryAfterMs?: number;
  /** The provider's own error code (Twilio `21610`, Slack `channel_not_found`), when it gave one. */
  readonly providerCode?: string;
  /** The provider's HTTP status, when there was one. */
  readonly status?: number;
}

/**
 * How one attempt of a delivery ended:
 * - `sent`: the provider accepted it (or an earlier attempt's receipt was found in the ledger);
 * - `retry`: it failed and will be tried again at `nextAttemptAt`;
 * - `failed`: it failed for good (permanent error, attempts used up, or an unknown earlier outcome);
 * - `deferred`: held back by a send limit (or a 429 pause) until `nextAttemptAt`; no attempt used.
 */
export type DeliveryAttemptOutcome = 'sent' | 'retry' | 'failed' | 'deferred';

/** Reported to `OutboundOptions.onAttempt` once per attempt (and once per deferral). */
export interface DeliveryAttemptEvent {
  readonly delivery: OutboundDelivery;
  /** 1-based number of the attempt; a deferred attempt keeps its number when it runs later. */
  readonly attempt: number;
  readonly outcome: DeliveryAttemptOutcome;
  /** With `sent`. */
  readonly receipt?: SendReceipt;
  /** With `retry`, `failed` and `deferred`. */
  readonly error?: DeliveryErrorSummary;
  /** With `retry` and `deferred`: when the delivery runs again, in epoch milliseconds. */
  readonly nextAttemptAt?: number;
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
