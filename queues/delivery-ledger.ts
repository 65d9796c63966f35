/**
 * The delivery ledger: one Redis hash per idempotency key, `<prefix>:delivery-ledger:<sha256>`,
 * that records the intent to send before the provider is called and the receipt after. A retried
 * job that finds a receipt completes with it instead of sending again; one that finds an intent
 * without an outcome knows a worker died mid-send, and may ask the provider (see
 * `unconfirmed-send.ts`): a message found is recorded as the receipt, and a message the provider
 * does not have is sent under a new intent that replaces the open one only if no other attempt
 * replaced it first (`resume`).
 *
 * States: `sending` (intent recorded, outcome unknown), `sent` (receipt recorded), `failed` (the
 * sender reported that it did not send). Each write pushes the expiry forward to `ttlMs`.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sha256Hex } from './job-ids.ts';
import type { SendReceipt } from './outbound-types.ts';
import { checkPrefix } from './redis-connections.ts';
import { defineScript, runScript } from '../src/runtime/redis/redis-script.ts';

/**
 * KEYS[1] ledger hash. ARGV: now, jobId, ttlMs, idempotencyKey, resendUnconfirmed: '1' (always),
 * '0' (never) or '=<ms>' (only while the open intent is still the one recorded at <ms>), and the
 * intent's own random id.
 * Returns {'sent', receipt} | {'unconfirmed', sendingSince, silentSince or ''} | {'proceed', previousState}.
 * A new intent drops the earlier one's `silentSince`. An open intent with the same id is this
 * very call sent again (its first answer lost with the connection): it proceeds as it did then.
 */
const BEGIN = defineScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'sent' then
  return {'sent', redis.call('HGET', KEYS[1], 'receipt')}
end
if state == 'sending' and redis.call('HGET', KEYS[1], 'intent') == ARGV[6] then
  return {'proceed', redis.call('HGET', KEYS[1], 'previousState') or 'new'}
end
if state == 'sending' and ARGV[5] ~= '1' then
  local since = redis.call('HGET', KEYS[1], 'sendingSince') or ''
  if ARGV[5] == '0' or string.sub(ARGV[5], 1, 1) ~= '=' or tonumber(string.sub(ARGV[5], 2)) ~= tonumber(since) then
    return {'unconfirmed', since, redis.call('HGET', KEYS[1], 'silentSince') or ''}
  end
end
redis.call('HDEL', KEYS[1], 'silentSince')
redis.call('HSET', KEYS[1], 'state', 'sending', 'sendingSince', ARGV[1], 'jobId', ARGV[2], 'idempotencyKey', ARGV[4], 'intent', ARGV[6], 'previousState', state or 'new')
redis.call('HINCRBY', KEYS[1], 'sendCalls', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'proceed', state or 'new'}
`);

/** KEYS[1] ledger hash. ARGV: now, receipt JSON, ttlMs. */
const RECORD_RECEIPT = defineScript(`
redis.call('HSET', KEYS[1], 'state', 'sent', 'receipt', ARGV[2], 'sentAt', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/** KEYS[1] ledger hash. ARGV: now, error message, ttlMs. Never overwrites a receipt. */
const RECORD_FAILURE = defineScript(`
if redis.call('HGET', KEYS[1], 'state') == 'sent' then
  return 0
end
redis.call('HSET', KEYS[1], 'state', 'failed', 'lastError', ARGV[2], 'failedAt', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/** The job id of an intent recorded by an inline send (`inline-send.ts`), which has no queue job. */
export const INLINE_INTENT_JOB_ID = 'inline';

/**
 * KEYS[1] ledger hash. ARGV: the time (ms). Records it as `silentSince` while the entry is an
 * inline send's open intent: a queue job's intent that replaced it is not the dead sender's.
 */
const MARK_SILENT = defineScript(`
local fields = redis.call('HMGET', KEYS[1], 'state', 'jobId')
if fields[1] ~= 'sending' or fields[2] ~= '${INLINE_INTENT_JOB_ID}' then return 0 end
redis.call('HSET', KEYS[1], 'silentSince', ARGV[1])
return 1
`);

/** What {@link DeliveryLedger.begin} found. */
export type LedgerBegin =
  /** Sent before: complete with this receipt, do not send. */
  | { readonly kind: 'sent'; readonly receipt: SendReceipt }
  /**
   * An earlier attempt recorded its intent, at `since` (epoch milliseconds; 0 when not kept), but
   * no outcome; nothing was recorded now.
   */
  | {
    readonly kind: 'unconfirmed';
    readonly since: number;
    /** From when the attempt's process surely sent nothing more (it was found dead), when known. */
    readonly silentSince?: number;
  }
  /** Intent recorded now: go ahead and send. */
  | { readonly kind: 'proceed'; readonly previous: 'new' | 'failed' | 'sending' };

/** One ledger entry as stored. */
export interface LedgerEntry {
  readonly state: 'sending' | 'sent' | 'failed';
  readonly idempotencyKey: string;
  readonly jobId: string;
  /** Times the sender was called for this key. */
  readonly sendCalls: number;
  readonly receipt?: SendReceipt;
  readonly lastError?: string;
}

/** Options of {@link createDeliveryLedger}. */
export interface DeliveryLedgerOptions {
  /** Client for the ledger commands. Never closed by the ledger. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long an entry lives after its last write, in milliseconds. Default 2592000000 (30 days). */
  readonly ttlMs?: number;
}

/** The delivery ledger; see {@link createDeliveryLedger}. */
export interface DeliveryLedger {
  /**
   * Records the intent to send `idempotencyKey` unless it was sent already, or unless an earlier
   * intent has no outcome and `resendUnconfirmed` is false.
   */
  begin(idempotencyKey: string, jobId: string, resendUnconfirmed: boolean): Promise<LedgerBegin>;
  /**
   * Records a new intent to send over an open one that was recorded at `since` (as `begin` reported
   * it), once the provider said the earlier send is not there. Answers `unconfirmed` when another
   * attempt has taken the entry over since (its own intent, a receipt is `sent`), so that only one of
   * two attempts that looked at once goes on to send.
   */
  resume(idempotencyKey: string, jobId: string, since: number): Promise<LedgerBegin>;
  /** Records a successful send. */
  recordReceipt(idempotencyKey: string, receipt: SendReceipt): Promise<void>;
  /** Records that the sender did not send; ignored if a receipt exists. */
  recordFailure(idempotencyKey: string, message: string): Promise<void>;
  /** The stored entry, if any. */
  read(idempotencyKey: string): Promise<LedgerEntry | undefined>;
  /**
   * Records that the process of the open intent, an inline send's, sends nothing after `atMs`
   * (epoch milliseconds): it was found dead, so a message it sent is at the provider by then.
   * Ignored unless the entry is `sending` under that inline intent (not one a queue job recorded
   * since, nor a late repeat of this call landing after one).
   */
  markSilent(idempotencyKey: string, atMs: number): Promise<void>;
}

/** The Redis key of the ledger entry of `idempotencyKey`. */
export function deliveryLedgerKey(prefix: string, idempotencyKey: string): string {
  return `${prefix}:delivery-ledger:${sha256Hex(idempotencyKey)}`;
}

function parseReceipt(json: unknown): SendReceipt {
  if (typeof json !== 'string') return {};
  const value: unknown = JSON.parse(json);
  return typeof value === 'object' && value !== null ? value : {};
}

function isState(value: string | undefined): value is LedgerEntry['state'] {
  return value === 'sending' || value === 'sent' || value === 'failed';
}

/** Creates the delivery ledger on `options.redis`. */
export function createDeliveryLedger(options: DeliveryLedgerOptions): DeliveryLedger {
  const { redis } = options;
  const prefix = checkPrefix(options.prefix);
  const ttlMs = options.ttlMs ?? 30 * 24 * 60 * 60 * 1000;
  const keyOf = (idempotencyKey: string): string => deliveryLedgerKey(prefix, idempotencyKey);

  const begin = async (idempotencyKey: string, jobId: string, resend: string): Promise<LedgerBegin> => {
    const reply = await runScript(redis, BEGIN, [keyOf(idempotencyKey)], [Date.now(), jobId, ttlMs, idempotencyKey, resend, randomUUID()]);
    const [kind, value, silent] = Array.isArray(reply) ? (reply as unknown[]) : [];
    if (kind === 'sent') return { kind, receipt: parseReceipt(value) };
    if (kind === 'unconfirmed') {
      const since = Number(value);
      const silentSince = Number(silent);
      return { kind, since: Number.isFinite(since) && value !== '' ? since : 0, ...(silent !== '' && Number.isFinite(silentSince) ? { silentSince } : {}) };
    }
    const previous = value === 'failed' || value === 'sending' ? value : 'new';
    return { kind: 'proceed', previous };
  };

  return {
    begin: (idempotencyKey, jobId, resendUnconfirmed) => begin(idempotencyKey, jobId, resendUnconfirmed ? '1' : '0'),
    resume: (idempotencyKey, jobId, since) => begin(idempotencyKey, jobId, `=${String(since)}`),
    async recordReceipt(idempotencyKey, receipt) {
      await runScript(redis, RECORD_RECEIPT, [keyOf(idempotencyKey)], [Date.now(), JSON.stringify(receipt), ttlMs]);
    },
    async recordFailure(idempotencyKey, message) {
      await runScript(redis, RECORD_FAILURE, [keyOf(idempotencyKey)], [Date.now(), message, ttlMs]);
    },
    async markSilent(idempotencyKey, atMs) {
      await runScript(redis, MARK_SILENT, [keyOf(idempotencyKey)], [Math.floor(atMs)]);
    },
    async read(idempotencyKey) {
      const fields = await redis.hgetall(keyOf(idempotencyKey));
      const state = fields['state'];
      if (!isState(state)) return undefined;
      return {
        state,
        idempotencyKey: fields['idempotencyKey'] ?? idempotencyKey,
        jobId: fields['jobId'] ?? '',
        sendCalls: Number(fields['sendCalls'] ?? 0),
        ...(fields['receipt'] === undefined ? {} : { receipt: parseReceipt(fields['receipt']) }),
        ...(fields['lastError'] === undefined ? {} : { lastError: fields['lastError'] }),
      };
    },
  };
}
