/**
 * Which session, turn and delivery a provider's message id belongs to, so a status the provider
 * reports later (Twilio's status callback, WhatsApp's `statuses`) lands in the right session's log.
 * Remembered when a send succeeds, one `SET … EX` per message sent on a channel that reports
 * statuses.
 *
 * Keys (`<p>` the prefix): `<p>:sent:<channel>:<provider message id>`, JSON, expiring after `ttlSeconds`.
 */
import type { Redis } from 'ioredis';

/** Where a sent message came from. */
export interface SentMessageRef {
  readonly sessionId: string;
  /** The turn that produced it, when there was one. */
  readonly turnId?: string;
  /** The delivery's idempotency key. */
  readonly idempotencyKey: string;
}

/** The map of provider message ids. */
export interface SentMessages {
  remember(channel: string, providerMessageId: string, ref: SentMessageRef): Promise<void>;
  /** Where `providerMessageId` came from, or `undefined` (not sent by this service, or forgotten). */
  find(channel: string, providerMessageId: string): Promise<SentMessageRef | undefined>;
}

/** Options of {@link createSentMessages}. */
export interface SentMessagesOptions {
  /** A connection the caller owns (and closes). */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long a message id is remembered, in seconds. Default 7 days. */
  readonly ttlSeconds?: number;
}

/** A {@link SentMessages} in Redis. */
export function createSentMessages(options: SentMessagesOptions): SentMessages {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const ttlSeconds = options.ttlSeconds ?? 7 * 86_400;
  const key = (channel: string, providerMessageId: string): string => `${prefix}:sent:${channel}:${providerMessageId}`;
  return {
    async remember(channel, providerMessageId, ref) {
      const { sessionId, turnId, idempotencyKey } = ref;
      await redis.set(key(channel, providerMessageId), JSON.stringify({ sessionId, ...(turnId === undefined ? {} : { turnId }), idempotencyKey }), 'EX', ttlSeconds);
    },
    async find(channel, providerMessageId) {
      const raw = await redis.get(key(channel, providerMessageId));
      return raw === null ? undefined : (JSON.parse(raw) as SentMessageRef);
    },
  };
}
