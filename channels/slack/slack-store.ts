/**
 * What the Slack channel keeps in Redis: the threads the bot is in (so replies there continue the
 * conversation without a mention) and the `ts` of messages it may edit later (an approval card,
 * updated in place once decided). Every key expires.
 */
import type { Redis } from 'ioredis';

/** Options of {@link createSlackStore}. */
export interface SlackStoreOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb:slack`. */
  readonly prefix: string;
  /** How long a thread or a message key is remembered, in ms. Default 30 days. */
  readonly ttlMs?: number;
}

/** The Slack channel's records. */
export interface SlackStore {
  joinThread(teamId: string, channel: string, threadTs: string): Promise<void>;
  inThread(teamId: string, channel: string, threadTs: string): Promise<boolean>;
  /** Remembers where the message posted under `key` is. */
  rememberMessage(key: string, where: { readonly channel: string; readonly ts: string }): Promise<void>;
  messageOf(key: string): Promise<{ readonly channel: string; readonly ts: string } | undefined>;
}

/** Creates the store. */
export function createSlackStore(options: SlackStoreOptions): SlackStore {
  const { redis, prefix } = options;
  const ttlMs = options.ttlMs ?? 30 * 86_400_000;
  const threadKey = (teamId: string, channel: string, threadTs: string): string => `${prefix}:thread:${teamId}:${channel}:${threadTs}`;
  return {
    async joinThread(teamId, channel, threadTs) { await redis.set(threadKey(teamId, channel, threadTs), '1', 'PX', ttlMs); },
    async inThread(teamId, channel, threadTs) { return (await redis.exists(threadKey(teamId, channel, threadTs))) === 1; },
    async rememberMessage(key, where) { await redis.set(`${prefix}:message:${key}`, JSON.stringify(where), 'PX', ttlMs); },
    async messageOf(key) {
      const raw = await redis.get(`${prefix}:message:${key}`);
      return raw === null ? undefined : (JSON.parse(raw) as { channel: string; ts: string });
    },
  };
}
