/**
 * Delivery statuses of sent messages, as Meta's webhooks report them (`value.statuses[]`): per
 * message id (`wamid.…`) the furthest status so far, and per delivery tag (the send's
 * `biz_opaque_callback_data`, which the status echoes) the `wamid` it became, so a send whose
 * outcome was lost can be found (`find-sent.ts`). Meta's webhooks arrive out of order and
 * repeat, so a status is saved only when it is further than the saved one, in one Lua script:
 * `sent` < `delivered` < `failed` < `read` (a failure replaces sent or delivered, never read).
 */
import type { Redis } from 'ioredis';
import { runScript } from '../../../src/runtime/redis/redis-script.ts';
import { FORWARD_ONLY_STATUS } from '../../kit/forward-only.ts';

/** The statuses Meta reports for a sent message. */
export type CloudStatusName = 'sent' | 'delivered' | 'read' | 'failed';

/** How far each status is; a status not above the saved one changes nothing. */
export const CLOUD_STATUS_RANK: Readonly<Record<CloudStatusName, number>> = { sent: 1, delivered: 2, failed: 3, read: 4 };

/** A saved status. JSON-serialisable. */
export interface CloudDeliveryStatus {
  /** The message id Meta gave the send (`wamid.…`). */
  readonly wamid: string;
  readonly status: CloudStatusName;
  /** The recipient, E.164, when given. */
  readonly recipient?: string;
  /** When Meta says it happened, ISO 8601. */
  readonly at: string;
  /** Meta's error code of a failed message (`131047`), when given. */
  readonly errorCode?: string;
  /** Meta's words for that error, when given. */
  readonly errorTitle?: string;
}

/** The store. */
export interface CloudStatuses {
  /** Saves `status` unless a status as far or further is saved; resolves whether it was saved. */
  record(status: CloudDeliveryStatus): Promise<boolean>;
  /** The furthest status of `wamid`, or `undefined` when none is kept. */
  get(wamid: string): Promise<CloudDeliveryStatus | undefined>;
  /** Remembers that the send tagged `tag` (its `biz_opaque_callback_data`) is `wamid`. */
  rememberTag(tag: string, wamid: string): Promise<void>;
  /** The `wamid` of the send tagged `tag`, once a status webhook carrying the tag arrived. */
  wamidOfTag(tag: string): Promise<string | undefined>;
}

/** Options of {@link createCloudStatuses}. */
export interface CloudStatusesOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb:whatsapp:cloud`; keys are `<prefix>:status:<wamid>`. */
  readonly prefix: string;
  /** How long a status is kept after its last change, in ms. Default 7 days. */
  readonly ttlMs?: number;
}

/** Default time a status is kept: 7 days, in ms. */
export const DEFAULT_STATUS_TTL_MS = 7 * 86_400_000;

/**
 * Creates the store.
 *
 * @example
 * const statuses = createCloudStatuses({ redis, prefix: `${prefix}:whatsapp:cloud` });
 * await statuses.record({ wamid, status: 'read', at: new Date().toISOString() });
 */
export function createCloudStatuses(options: CloudStatusesOptions): CloudStatuses {
  const { redis } = options;
  const key = (wamid: string): string => `${options.prefix}:status:${wamid}`;
  const ttlMs = options.ttlMs ?? DEFAULT_STATUS_TTL_MS;
  return {
    async record(status) {
      const rank = CLOUD_STATUS_RANK[status.status];
      return (await runScript(redis, FORWARD_ONLY_STATUS, [key(status.wamid)], [JSON.stringify(status), rank, ttlMs])) === 1;
    },
    async get(wamid) {
      const raw = await redis.hget(key(wamid), 'record');
      return raw === null ? undefined : (JSON.parse(raw) as CloudDeliveryStatus);
    },
    async rememberTag(tag, wamid) {
      await redis.set(`${options.prefix}:tag:${tag}`, wamid, 'PX', ttlMs);
    },
    async wamidOfTag(tag) {
      return (await redis.get(`${options.prefix}:tag:${tag}`)) ?? undefined;
    },
  };
}
