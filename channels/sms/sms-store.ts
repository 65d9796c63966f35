/**
 * What the SMS channel keeps in Redis: the numbers that opted out (nothing is sent to them until
 * they opt in again), and the delivery status of every message sent, moved only forward
 * (Twilio's status callbacks arrive out of order and repeat).
 */
import type { Redis } from 'ioredis';
import { runScript } from '../../src/runtime/redis/redis-script.ts';
import { FORWARD_ONLY_STATUS } from '../kit/forward-only.ts';

/** How far a message got, by Twilio status; a callback with a lower rank than the saved one changes nothing. */
export const STATUS_RANK: Readonly<Record<string, number>> = {
  accepted: 1, scheduled: 1, queued: 2, sending: 3, sent: 4, receiving: 4, received: 5,
  delivered: 6, undelivered: 6, failed: 6, read: 7, canceled: 6,
};

/** A saved delivery status. */
export interface DeliveryStatus {
  readonly messageSid: string;
  readonly status: string;
  /** Twilio's error code of a failed or undelivered message (`30003`), when given. */
  readonly errorCode?: string;
  readonly to?: string;
  /** ISO 8601 time the status was saved. */
  readonly updatedAt: string;
}

/** The SMS channel's records. */
export interface SmsStore {
  optOut(number: string): Promise<void>;
  optIn(number: string): Promise<void>;
  isOptedOut(number: string): Promise<boolean>;
  /** Saves `status` unless a status as far or further was saved; resolves whether it was saved. */
  recordStatus(status: DeliveryStatus): Promise<boolean>;
  status(messageSid: string): Promise<DeliveryStatus | undefined>;
}

/** Options of {@link createSmsStore}. */
export interface SmsStoreOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb:sms:AC…`. */
  readonly prefix: string;
  /** How long a delivery status is kept, in ms. Default 30 days. */
  readonly statusTtlMs?: number;
}

/** Creates the store. */
export function createSmsStore(options: SmsStoreOptions): SmsStore {
  const { redis, prefix } = options;
  const optOutKey = `${prefix}:opted-out`;
  const statusKey = (sid: string): string => `${prefix}:status:${sid}`;
  const ttlMs = options.statusTtlMs ?? 30 * 86_400_000;
  return {
    async optOut(number) { await redis.sadd(optOutKey, number); },
    async optIn(number) { await redis.srem(optOutKey, number); },
    async isOptedOut(number) { return (await redis.sismember(optOutKey, number)) === 1; },
    async recordStatus(status) {
      const rank = STATUS_RANK[status.status] ?? 0;
      return (await runScript(redis, FORWARD_ONLY_STATUS, [statusKey(status.messageSid)], [JSON.stringify(status), rank, ttlMs])) === 1;
    },
    async status(messageSid) {
      const raw = await redis.hget(statusKey(messageSid), 'record');
      return raw === null ? undefined : (JSON.parse(raw) as DeliveryStatus);
    },
  };
}
