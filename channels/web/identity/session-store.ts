/**
 * Web sessions in Redis: `<prefix>:web:sid:<sid>` holds `{ identity, personId?, basis, createdAt }`
 * as JSON with a long TTL that every use refreshes. Deleting the key revokes the session: its
 * cookie, however well signed, no longer identifies anyone.
 *
 * A session's record never changes, so the process remembers the records it read (`known`): a
 * write made for a remembered session carries the session's key as its condition (`conditionOf`),
 * checked in that write's own script. The key is never assumed to be there, only the record.
 */
import type { Redis } from 'ioredis';
import { randomToken } from '../../../src/runtime/crypto/signing.ts';
import { recentMap } from '../../../src/runtime/memo/recent-map.ts';
import type { AcceptCondition } from '../../../src/runtime/session/session-store.ts';

/** Default of {@link SessionStoreOptions.ttlMs}: 30 days. */
export const DEFAULT_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Default of {@link SessionStoreOptions.rememberedSessions}: records a process keeps (a few hundred bytes each). */
export const DEFAULT_REMEMBERED_SESSIONS = 10_000;

/** What the server keeps about one browser session. */
export interface SessionRecord {
  /** The browser's identity, `b_` + 128-bit random base64url; the sender is `web:<identity>`. */
  readonly identity: string;
  /** The configured person the browser signed in as, if it did. */
  readonly personId?: string;
  /** What the session rests on: `web session cookie`, `invite by operator`, `link sent to <address>`. */
  readonly basis: string;
  /** ISO 8601. */
  readonly createdAt: string;
}

/** A session: its record and the id its cookie carries. */
export interface WebSession extends SessionRecord {
  /** 128-bit random base64url; secret (it is the cookie), never logged nor shown. */
  readonly sid: string;
}

/** Options of {@link createSessionStore}. */
export interface SessionStoreOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb`. */
  readonly prefix: string;
  /** How long a session lives after its last use, in ms. Default {@link DEFAULT_SESSION_TTL_MS}. */
  readonly ttlMs?: number;
  /** How many session records the process remembers, least recently used forgotten first. Default {@link DEFAULT_REMEMBERED_SESSIONS}. */
  readonly rememberedSessions?: number;
}

/** The session records of the web chat. */
export interface SessionStore {
  /** How long a session lives after its last use, in ms. */
  readonly ttlMs: number;
  /** Saves a new session under a fresh sid. */
  create(record: SessionRecord): Promise<WebSession>;
  /** The session, its TTL refreshed; `undefined` when unknown, expired or revoked. */
  get(sid: string): Promise<WebSession | undefined>;
  /**
   * The session as this process last read or made it, without asking Redis: it may have been
   * revoked or have expired since. Use it only for a write that carries {@link conditionOf}.
   */
  known(sid: string): WebSession | undefined;
  /** The condition a write made for session `sid` carries: its key still there, its TTL renewed. */
  conditionOf(sid: string): AcceptCondition;
  /** Forgets what the process remembers of `sid` (a write found it gone). */
  forget(sid: string): void;
  /** Revokes a session. */
  revoke(sid: string): Promise<void>;
}

function parseRecord(raw: string): SessionRecord | undefined {
  try {
    const value = JSON.parse(raw) as Partial<SessionRecord>;
    if (typeof value.identity !== 'string' || typeof value.basis !== 'string' || typeof value.createdAt !== 'string') return undefined;
    const base = { identity: value.identity, basis: value.basis, createdAt: value.createdAt };
    return typeof value.personId === 'string' ? { ...base, personId: value.personId } : base;
  } catch {
    return undefined;
  }
}

/** Whether `value` has the shape of a browser identity (`b_` + 22 characters of base64url). */
export function isBrowserIdentity(value: string): boolean {
  return /^b_[A-Za-z0-9_-]{22}$/.test(value);
}

/** A fresh browser identity: `b_` + 128-bit random base64url. */
export function newBrowserIdentity(): string {
  return `b_${randomToken()}`;
}

/**
 * Creates the session store.
 *
 * @example
 * const sessions = createSessionStore({ redis, prefix: 'sb' });
 * const session = await sessions.create({ identity: newBrowserIdentity(), basis: 'web session cookie', createdAt });
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis, prefix } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  const keyOf = (sid: string): string => `${prefix}:web:sid:${sid}`;
  const remembered = recentMap<string, WebSession>(options.rememberedSessions ?? DEFAULT_REMEMBERED_SESSIONS, { refreshOnGet: true });
  return {
    ttlMs,
    async create(record) {
      const sid = randomToken();
      await redis.set(keyOf(sid), JSON.stringify(record), 'PX', ttlMs);
      const session = { ...record, sid };
      remembered.set(sid, session);
      return session;
    },
    async get(sid) {
      const raw = await redis.getex(keyOf(sid), 'PX', ttlMs);
      const record = raw === null ? undefined : parseRecord(raw);
      if (record === undefined) {
        remembered.delete(sid);
        return undefined;
      }
      const session = { ...record, sid };
      remembered.set(sid, session);
      return session;
    },
    known: (sid) => remembered.get(sid),
    conditionOf: (sid) => ({ key: keyOf(sid), ttlMs }),
    forget(sid) {
      remembered.delete(sid);
    },
    async revoke(sid) {
      remembered.delete(sid);
      await redis.del(keyOf(sid));
    },
  };
}
