/**
 * What the email channel keeps in Redis besides the cursor: which conversation each Message-ID
 * belongs to (so a reply whose client kept only `In-Reply-To` still continues its session), the
 * Message-IDs already taken in (so a UIDVALIDITY change re-reads the mailbox without duplicates),
 * and a per-sender count for the rate cap. Every key expires.
 */
import { shortDigest } from '../../src/runtime/crypto/signing.ts';
import type { Redis } from 'ioredis';

/** Options of {@link createEmailStore}. */
export interface EmailStoreOptions {
  readonly redis: Redis;
  /** Key prefix of this mailbox, e.g. `sb:email:bot@example.com`. */
  readonly prefix: string;
  /** How long a Message-ID is remembered, in ms. Default 90 days. */
  readonly retentionMs?: number;
}

/** The email channel's small records. */
export interface EmailStore {
  /** Remembers that `messageId` belongs to the conversation `conversationKey`. */
  rememberThread(messageId: string, conversationKey: string): Promise<void>;
  /** The conversation of the first of `messageIds` (nearest first) that is known and that `accept` takes. */
  findThread(messageIds: readonly string[], accept: (conversationKey: string) => boolean): Promise<string | undefined>;
  /** Marks `messageId` as taken in; `false` when it was already. */
  markSeen(messageId: string): Promise<boolean>;
  /** Whether `messageId` was taken in before. */
  seen(messageId: string): Promise<boolean>;
  /**
   * Counts one mail from `sender` in the current window; resolves `false` once the sender is over
   * `max` mails per `windowMs`.
   */
  underRateCap(sender: string, max: number, windowMs: number, now: number): Promise<boolean>;
}

const DAY_MS = 86_400_000;

function digest(text: string): string {
  return shortDigest(text.trim().toLowerCase(), 27);
}

/** Creates the store. */
export function createEmailStore(options: EmailStoreOptions): EmailStore {
  const { redis, prefix } = options;
  const retentionMs = options.retentionMs ?? 90 * DAY_MS;
  const threadKey = (messageId: string): string => `${prefix}:thread:${digest(messageId)}`;
  const seenKey = (messageId: string): string => `${prefix}:seen:${digest(messageId)}`;
  return {
    async rememberThread(messageId, conversationKey) {
      await redis.set(threadKey(messageId), conversationKey, 'PX', retentionMs);
    },
    async findThread(messageIds, accept) {
      if (messageIds.length === 0) return undefined;
      const found = await redis.mget(...messageIds.map(threadKey));
      return found.find((value): value is string => typeof value === 'string' && accept(value));
    },
    async markSeen(messageId) {
      return (await redis.set(seenKey(messageId), '1', 'PX', retentionMs, 'NX')) === 'OK';
    },
    async seen(messageId) {
      return (await redis.exists(seenKey(messageId))) === 1;
    },
    async underRateCap(sender, max, windowMs, now) {
      const window = Math.floor(now / windowMs);
      const key = `${prefix}:rate:${digest(sender)}:${window}`;
      const [[, count]] = ((await redis.multi().incr(key).pexpire(key, windowMs).exec()) ?? [[null, 0]]) as [[unknown, number]];
      return count <= max;
    },
  };
}
