/**
 * Where the IMAP listener got to in its mailbox: the mailbox's UIDVALIDITY and the last UID whose
 * message was durably enqueued. Advanced only through the listener's lease fence, so a paused
 * holder that lost its lease cannot move it back or forward; never moves backwards within one
 * UIDVALIDITY.
 */
import type { Redis } from 'ioredis';
import { defineFencedScript, runFencedScript } from '../kit/lease/fenced-write.ts';
import type { FenceRef } from '../kit/lease/lease-keys.ts';

/** A saved position. */
export interface CursorPosition {
  readonly uidValidity: number;
  /** 0 when nothing was taken yet under this UIDVALIDITY. */
  readonly lastUid: number;
}

/** The cursor of one mailbox. */
export interface MailboxCursor {
  load(): Promise<CursorPosition | undefined>;
  /**
   * Moves to `uid` under `uidValidity` (a new UIDVALIDITY starts over from `uid`). Refused with
   * `lease.stale_fence` when `fence` no longer holds the lease.
   */
  advance(fence: FenceRef, position: CursorPosition): Promise<void>;
}

const ADVANCE = defineFencedScript(`
local validity = redis.call('HGET', keys[1], 'uidValidity')
local last = tonumber(redis.call('HGET', keys[1], 'lastUid') or '0')
if validity == args[1] and tonumber(args[2]) <= last then return 0 end
redis.call('HSET', keys[1], 'uidValidity', args[1], 'lastUid', args[2])
return 1
`);

/**
 * The cursor kept in the hash `key`.
 *
 * @example
 * const cursor = createMailboxCursor(redis, `${prefix}:email:bot@example.com:INBOX:cursor`);
 * await cursor.advance(fence, { uidValidity: 1700000000, lastUid: 42 });
 */
export function createMailboxCursor(redis: Redis, key: string): MailboxCursor {
  return {
    async load() {
      const [validity, last] = await redis.hmget(key, 'uidValidity', 'lastUid');
      if (validity === null || validity === undefined) return undefined;
      return { uidValidity: Number(validity), lastUid: Number(last ?? 0) };
    },
    async advance(fence, position) {
      await runFencedScript(redis, ADVANCE, fence, [key], [String(position.uidValidity), String(position.lastUid)]);
    },
  };
}
