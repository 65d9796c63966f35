/**
 * Where the WhatsApp Web session stands, kept in Redis: written by the session's holder (through
 * the lease fence, so a replaced holder cannot overwrite its successor's state), read by the
 * operator page from any web process. The last few states are kept too, newest first.
 */
import type { Redis } from 'ioredis';
import { defineFencedScript, runFencedScript } from '../../kit/lease/fenced-write.ts';
import type { FenceRef } from '../../kit/lease/lease-keys.ts';
import { webKeys } from './web-keys.ts';

/** The stages of a linked-device session. */
export type LinkStatus = 'starting' | 'waiting-for-qr' | 'authenticated' | 'ready' | 'disconnected' | 'logged-out' | 'auth-failed';

/** What the holder says about the session. */
export interface LinkStateUpdate {
  readonly status: LinkStatus;
  /** A line of detail (the disconnect reason, an error). */
  readonly detail?: string;
  /** The QR code's text, while `waiting-for-qr`. */
  readonly qr?: string;
  /** The linked number, E.164, once known. */
  readonly number?: string;
  /** What an operator should know or do (the session dropped, the phone logged out). */
  readonly alert?: string;
}

/** A stored state: the update, when it began and who wrote it. */
export interface LinkState extends LinkStateUpdate {
  /** When this status began, ISO 8601. */
  readonly since: string;
  /** The fencing token of the holder that wrote it. */
  readonly token: number;
}

/** Options of {@link createLinkStateStore}. */
export interface LinkStateStoreOptions {
  /** The command connection; never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  /** Now. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** How many states {@link LinkStateStore.history} keeps. Default 50. */
  readonly historyLength?: number;
}

/** The link state in Redis. */
export interface LinkStateStore {
  /**
   * Records `update` as the current state (`since` now).
   * @throws {SwitchboardError} `lease.stale_fence` when `fence` no longer holds the session's lease.
   */
  write(fence: FenceRef, update: LinkStateUpdate): Promise<LinkState>;
  /** The current state; `undefined` before any session started. */
  read(): Promise<LinkState | undefined>;
  /** The last states, newest first, at most `limit` (default all kept). */
  history(limit?: number): Promise<LinkState[]>;
}

const WRITE = defineFencedScript(`
redis.call('SET', keys[1], args[1])
redis.call('LPUSH', keys[2], args[1])
redis.call('LTRIM', keys[2], 0, tonumber(args[2]) - 1)
return 1
`);

function parse(json: string): LinkState | undefined {
  const value = JSON.parse(json) as unknown;
  return typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'string' ? (value as LinkState) : undefined;
}

/** Creates the store. */
export function createLinkStateStore(options: LinkStateStoreOptions): LinkStateStore {
  const { redis } = options;
  const keys = webKeys(options.prefix);
  const clock = options.clock ?? ((): Date => new Date());
  const length = options.historyLength ?? 50;
  return {
    async write(fence, update) {
      const state: LinkState = { ...update, since: clock().toISOString(), token: fence.token };
      await runFencedScript(redis, WRITE, fence, [keys.linkState, keys.linkHistory], [JSON.stringify(state), length]);
      return state;
    },
    async read() {
      const json = await redis.get(keys.linkState);
      return json === null ? undefined : parse(json);
    },
    async history(limit = length) {
      const list = await redis.lrange(keys.linkHistory, 0, limit - 1);
      return list.map(parse).filter((state) => state !== undefined);
    },
  };
}
