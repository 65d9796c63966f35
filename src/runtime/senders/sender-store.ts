/**
 * What the sender policy keeps in Redis: senders an operator approved or blocked (who, when),
 * the live pairing codes, and the messages held until a code is approved.
 *
 * Keys (`<p>` the prefix, `<c>` a channel, `<a>` a sender's address on it, `<d>` a UTC date):
 * - `<p>:snd:<c>:approved`, `<p>:snd:<c>:blocked`: hashes, address → `{ by, at, code? }` (kept until revoked);
 * - `<p>:snd:code:<code>`: a live code's `{ channel, address, issuedAt, expiresAt }`, expiring with the code;
 * - `<p>:snd:codes`: the live codes by expiry (a sorted set, pruned when listed);
 * - `<p>:snd:<c>:code:<a>`: the sender's live code, `<expiry ms> <code>` (expiring with it);
 * - `<p>:snd:<c>:held:<a>`: the held messages, oldest first, at most `heldPerSender`, expiring
 *   `heldTtlSeconds` after the last one;
 * - `<p>:snd:<c>:issued:<a>:<d>`, `<p>:snd:<c>:refused:<a>:<d>`: codes issued and refusal sent that day (two days);
 * - `<p>:snd:seen:<injection id>`: a held message's id, so a redelivery is not held twice;
 * - `<p>:snd:misses:<approver>`: wrong codes an approver typed in the current window.
 */
import type { Redis } from 'ioredis';
import { CHANNEL_NAMES, type RefusalMode, type SenderMode } from '../app/app-types.ts';
import type { Injection } from '../injection.ts';
import type { AcceptGuard } from '../session/session-store.ts';
import { runScript } from '../redis/redis-script.ts';
import { newPairingCode, normalizePairingCode } from './pairing-code.ts';
import { ADMIT_SCRIPT, ALLOW_SCRIPT, APPROVE_SCRIPT, BLOCK_SCRIPT, LOOKUP_SCRIPT } from './sender-scripts.ts';

/** Default of {@link SenderStoreOptions.codeTtlMs}: a pairing code lives one hour. */
export const DEFAULT_CODE_TTL_MS = 3_600_000;
/** Default of {@link SenderStoreOptions.codesPerDay}. */
export const DEFAULT_CODES_PER_DAY = 3;
/** Default of {@link SenderStoreOptions.heldPerSender}. */
export const DEFAULT_HELD_PER_SENDER = 20;
/** Default of {@link SenderStoreOptions.missesPerWindow}. */
export const DEFAULT_MISSES_PER_WINDOW = 10;

const DAY_TTL_SECONDS = 2 * 24 * 3600;

/** Options of {@link createSenderStore}. */
export interface SenderStoreOptions {
  /** A command connection; not closed by the store. */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long a pairing code can be approved, in ms. Default {@link DEFAULT_CODE_TTL_MS} (1 hour). */
  readonly codeTtlMs?: number;
  /** Codes one sender can be given per UTC day. Default {@link DEFAULT_CODES_PER_DAY}. */
  readonly codesPerDay?: number;
  /** Messages held per unknown sender; later ones are dropped. Default {@link DEFAULT_HELD_PER_SENDER}. */
  readonly heldPerSender?: number;
  /** How long held messages wait for approval after the last one, in seconds. Default 7 days. */
  readonly heldTtlSeconds?: number;
  /** Wrong codes an approver may type per window before every try is refused. Default {@link DEFAULT_MISSES_PER_WINDOW}. */
  readonly missesPerWindow?: number;
  /** That window, in seconds. Default 3600. */
  readonly missWindowSeconds?: number;
  readonly clock?: () => Date;
  /** Makes codes. Default {@link newPairingCode}. */
  readonly newCode?: () => string;
}

/** What {@link SenderStore.admit} is asked. */
export interface AdmitRequest {
  /** The policy's mode on the injection's channel. */
  readonly mode: SenderMode;
  /** Whether the policy lets the sender in by itself (a known person or an `allow:` entry). */
  readonly listed: boolean;
  readonly refusal: RefusalMode;
  readonly injection: Injection;
}

/** What became of a message; see {@link SenderStore.admit}. */
export type AdmitResult =
  | { readonly outcome: 'allowed'; readonly heldWaiting: number }
  | { readonly outcome: 'blocked' }
  | { readonly outcome: 'refused'; readonly notify: boolean }
  | { readonly outcome: 'duplicate' }
  | { readonly outcome: 'held'; readonly kept: boolean; readonly why: 'code-pending' | 'code-limit' }
  | { readonly outcome: 'pairing-code-sent'; readonly kept: boolean; readonly code: string; readonly expiresAt: string; readonly validForMs: number };

/** Who approved or blocked a sender, and when. */
export interface SenderDecision {
  /** The operator, in words (`cli root`, `admin page`). */
  readonly by: string;
  /** ISO 8601. */
  readonly at: string;
  /** The pairing code that was approved. */
  readonly code?: string;
}

/** A sender an operator approved or blocked. */
export interface KnownSender extends SenderDecision {
  readonly channel: string;
  readonly address: string;
  readonly state: 'approved' | 'blocked';
}

/** A live pairing code. */
export interface PendingPairing {
  readonly code: string;
  readonly channel: string;
  readonly address: string;
  readonly displayName?: string;
  readonly issuedAt: string;
  readonly expiresAt: string;
  /** Messages waiting for the approval. */
  readonly held: number;
}

/** What {@link SenderStore.approve} did. */
export type ApproveResult =
  | { readonly status: 'approved'; readonly channel: string; readonly address: string; readonly code: string }
  | { readonly status: 'blocked'; readonly channel: string; readonly address: string }
  | { readonly status: 'unknown'; readonly triesLeft: number }
  | { readonly status: 'throttled' };

/** The store; see {@link createSenderStore}. */
export interface SenderStore {
  /**
   * Decides about one message of `request.injection.sender` on its channel, atomically: blocked
   * senders are refused first; then `open`, listed and approved senders are allowed; on an
   * `allowlist` channel the rest are refused (`notify` once a day with `refusal: daily`); on a
   * `pairing` channel the message is held and, unless a code is live or the day's codes are used
   * up, a new code is issued.
   */
  admit(request: AdmitRequest): Promise<AdmitResult>;
  /**
   * Where a sender's block and held messages are kept, for an accept that checks them itself
   * (`SessionStore.acceptUnless`) instead of {@link admit}'s reads, when the policy lets the
   * sender in by itself.
   */
  guardOf(channel: string, address: string): AcceptGuard;
  /**
   * Uses a pairing code typed by `approver`: the sender is approved (with `approver` and the time),
   * the code is gone. A wrong code counts against `approver`: after `missesPerWindow` of them in
   * the window, every try is `throttled`.
   */
  approve(typedCode: string, approver: string): Promise<ApproveResult>;
  /**
   * Approves a sender by address, without a code (an operator letting someone in ahead of their
   * first message, e.g. on an allowlist channel). Resolves `blocked` for a blocked sender (nothing changes).
   */
  allow(channel: string, address: string, by: string): Promise<'approved' | 'blocked'>;
  /** Removes an approval or a block; the sender is unknown again. Resolves `false` when there was none. */
  revoke(channel: string, address: string): Promise<boolean>;
  /** Blocks a sender (dropping their live code and held messages); resolves to the messages dropped. */
  block(channel: string, address: string, by: string): Promise<number>;
  /** The held messages of a sender, oldest first. */
  held(channel: string, address: string): Promise<Injection[]>;
  /** Forgets the first `count` held messages of a sender, once they are in their mailbox. */
  released(channel: string, address: string, count: number): Promise<void>;
  /** The live codes (oldest first) and every approved and blocked sender. */
  list(): Promise<{ readonly pending: readonly PendingPairing[]; readonly known: readonly KnownSender[] }>;
}

interface CodeRecord {
  readonly channel: string;
  readonly address: string;
  readonly displayName?: string;
  readonly issuedAt: string;
  readonly expiresAt: string;
}

type Reply = [string, ...(string | number)[]];

/** A {@link SenderStore} in Redis. */
export function createSenderStore(options: SenderStoreOptions): SenderStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const codeTtlMs = options.codeTtlMs ?? DEFAULT_CODE_TTL_MS;
  const codesPerDay = options.codesPerDay ?? DEFAULT_CODES_PER_DAY;
  const heldCap = options.heldPerSender ?? DEFAULT_HELD_PER_SENDER;
  const heldTtl = options.heldTtlSeconds ?? 7 * 24 * 3600;
  const maxMisses = options.missesPerWindow ?? DEFAULT_MISSES_PER_WINDOW;
  const missWindow = options.missWindowSeconds ?? 3600;
  const clock = options.clock ?? (() => new Date());
  const newCode = options.newCode ?? newPairingCode;
  const channelKey = (channel: string, part: string): string => `${prefix}:snd:${channel}:${part}`;
  const codeKey = (code: string): string => `${prefix}:snd:code:${code}`;
  const codesKey = `${prefix}:snd:codes`;

  const admitOnce = async (request: AdmitRequest, code: string, now: Date): Promise<Reply> => {
    const { injection } = request;
    const channel = injection.channel;
    const address = injection.sender.id;
    const day = now.toISOString().slice(0, 10);
    // Only a pairing channel can hold the message or issue a code: elsewhere (every message of an
    // open channel) neither the injection nor a code record is serialised for the script.
    const pairing = request.mode === 'pairing';
    const record: CodeRecord = {
      channel,
      address,
      ...(injection.sender.displayName === undefined ? {} : { displayName: injection.sender.displayName }),
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + codeTtlMs).toISOString(),
    };
    const keys = [
      channelKey(channel, 'blocked'),
      channelKey(channel, 'approved'),
      channelKey(channel, `held:${address}`),
      channelKey(channel, `code:${address}`),
      channelKey(channel, `issued:${address}:${day}`),
      codeKey(code),
      codesKey,
      channelKey(channel, `refused:${address}:${day}`),
      `${prefix}:snd:seen:${injection.id}`,
    ];
    const args = [
      address, request.mode, pairing ? JSON.stringify(injection) : '', code, now.getTime(), codeTtlMs,
      codesPerDay, heldCap, heldTtl, request.refusal, DAY_TTL_SECONDS, pairing ? JSON.stringify(record) : '',
    ];
    return (await runScript(redis, ADMIT_SCRIPT, keys, args)) as Reply;
  };

  const readHash = async (channel: string, state: 'approved' | 'blocked'): Promise<KnownSender[]> => {
    const entries = await redis.hgetall(channelKey(channel, state));
    return Object.entries(entries).map(([address, json]) => ({ ...(JSON.parse(json) as SenderDecision), channel, address, state }));
  };

  const guardOf = (channel: string, address: string): AcceptGuard => ({ blockedKey: channelKey(channel, 'blocked'), blockedField: address, heldKey: channelKey(channel, `held:${address}`) });
  /**
   * A sender the policy lets in by itself (an open channel, a known person, an `allow:` entry):
   * only a block, and held messages to let through first, matter. Two reads in one round trip,
   * the same the script's first branch makes, without a script's cost on every message.
   */
  const admitListed = async (injection: Injection): Promise<AdmitResult> => {
    const guard = guardOf(injection.channel, injection.sender.id);
    // Sent in the same tick, the two leave in one socket write (the clients coalesce a tick's writes).
    const [blocked, held] = await Promise.all([redis.hexists(guard.blockedKey, guard.blockedField), redis.llen(guard.heldKey)]);
    return blocked === 1 ? { outcome: 'blocked' } : { outcome: 'allowed', heldWaiting: held };
  };

  return {
    guardOf,
    async admit(request) {
      if (request.mode === 'open' || request.listed) return admitListed(request.injection);
      // A new code is taken only when none is live; a collision with another sender's live code is
      // all but impossible (25^8 codes), and then simply retried with another.
      for (let attempt = 0; ; attempt += 1) {
        // A code is only issued on a pairing channel; elsewhere its key is a placeholder the script never touches.
        const code = request.mode === 'pairing' ? newCode() : '-';
        const now = clock();
        const reply = await admitOnce(request, code, now);
        const [outcome, first, second] = reply;
        switch (outcome) {
          case 'blocked':
          case 'duplicate':
            return { outcome };
          case 'allowed':
            return { outcome, heldWaiting: Number(first) };
          case 'refused':
            return { outcome, notify: Number(first) === 1 };
          case 'held':
            return { outcome, kept: Number(first) === 1, why: second === 'pending' ? 'code-pending' : 'code-limit' };
          case 'code':
            return { outcome: 'pairing-code-sent', kept: Number(first) === 1, code, expiresAt: new Date(now.getTime() + codeTtlMs).toISOString(), validForMs: codeTtlMs };
          default:
            if (attempt >= 5) throw new Error(`sender store: no free pairing code after ${String(attempt + 1)} tries`);
        }
      }
    },

    async approve(typedCode, approver) {
      const code = normalizePairingCode(typedCode) ?? '-';
      const [found, detail] = (await runScript(redis, LOOKUP_SCRIPT, [`${prefix}:snd:misses:${approver}`, codeKey(code)], [maxMisses, missWindow])) as Reply;
      if (found === 'throttled') return { status: 'throttled' };
      if (found === 'unknown') return { status: 'unknown', triesLeft: Number(detail) };
      const record = JSON.parse(String(detail)) as CodeRecord;
      // Expiry follows this store's clock; Redis drops the record a moment later on its own.
      if (Date.parse(record.expiresAt) <= clock().getTime()) return { status: 'unknown', triesLeft: maxMisses };
      const decision: SenderDecision = { by: approver, at: clock().toISOString(), code };
      const keys = [codeKey(code), channelKey(record.channel, 'approved'), channelKey(record.channel, 'blocked'), channelKey(record.channel, `code:${record.address}`), codesKey];
      const [status] = (await runScript(redis, APPROVE_SCRIPT, keys, [code, record.address, JSON.stringify(decision)])) as Reply;
      if (status === 'approved') return { status, channel: record.channel, address: record.address, code };
      if (status === 'blocked') return { status, channel: record.channel, address: record.address };
      return { status: 'unknown', triesLeft: maxMisses };
    },

    async allow(channel, address, by) {
      const decision: SenderDecision = { by, at: clock().toISOString() };
      const [status] = (await runScript(redis, ALLOW_SCRIPT, [channelKey(channel, 'approved'), channelKey(channel, 'blocked')], [address, JSON.stringify(decision)])) as Reply;
      return status === 'blocked' ? 'blocked' : 'approved';
    },

    async revoke(channel, address) {
      const removed = await redis.multi().hdel(channelKey(channel, 'approved'), address).hdel(channelKey(channel, 'blocked'), address).exec();
      return (removed ?? []).some(([, count]) => Number(count) > 0);
    },

    async block(channel, address, by) {
      const live = /^\d+ (.+)$/.exec((await redis.get(channelKey(channel, `code:${address}`))) ?? '')?.[1] ?? '';
      const keys = [channelKey(channel, 'approved'), channelKey(channel, 'blocked'), channelKey(channel, `code:${address}`), channelKey(channel, `held:${address}`), codesKey, codeKey(live === '' ? '-' : live)];
      const decision: SenderDecision = { by, at: clock().toISOString() };
      return Number(await runScript(redis, BLOCK_SCRIPT, keys, [address, JSON.stringify(decision), live]));
    },

    async held(channel, address) {
      const items = await redis.lrange(channelKey(channel, `held:${address}`), 0, -1);
      return items.map((item) => JSON.parse(item) as Injection);
    },

    async released(channel, address, count) {
      if (count > 0) await redis.ltrim(channelKey(channel, `held:${address}`), count, -1);
    },

    async list() {
      const now = clock().getTime();
      await redis.zremrangebyscore(codesKey, '-inf', String(now));
      const codes = await redis.zrange(codesKey, '0', '-1');
      const pending: PendingPairing[] = [];
      for (const code of codes) {
        const json = await redis.get(codeKey(code));
        if (json === null) continue;
        const record = JSON.parse(json) as CodeRecord;
        const held = await redis.llen(channelKey(record.channel, `held:${record.address}`));
        pending.push({ code, ...record, held });
      }
      const known: KnownSender[] = [];
      for (const channel of CHANNEL_NAMES) known.push(...(await readHash(channel, 'approved')), ...(await readHash(channel, 'blocked')));
      return { pending, known };
    },
  };
}
