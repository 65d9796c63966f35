/**
 * Captured model calls: the whole request a turn sent at one step (system prompt, messages and
 * tools as sent) and the whole response, for the inspector and for replay. Only written when the
 * `inspect.capture` setting is on. Secrets are removed before anything is stored; personal data
 * is masked by the caller (`mask-model-call.ts`).
 *
 * Keys (`<p>` the prefix): `<p>:cap:<session>:<turn>:<step>`, one JSON string per call, expiring
 * `retentionDays` after it was written.
 */
import type { Redis } from 'ioredis';

/** One captured call. */
export interface CapturedCall {
  /** The request as sent (a `ModelRequest`, masked and without secrets). */
  readonly request: unknown;
  /** The response as received (a `ModelResponse`, masked), or `null` when the call failed. */
  readonly response: unknown;
  /** Why the call failed, when it did. */
  readonly error?: string;
}

/** A captured call as read back. */
export interface StoredCapture extends CapturedCall {
  /** When it was saved, ISO 8601. */
  readonly savedAt: string;
}

/** The store of captured calls. */
export interface CaptureStore {
  /** Saves the call of `step` (0-based model call of the turn), replacing one saved before. */
  save(sessionId: string, turnId: string, step: number, call: CapturedCall): Promise<void>;
  /** The call saved for `step`, or `undefined` (never captured, or older than the retention). */
  read(sessionId: string, turnId: string, step: number): Promise<StoredCapture | undefined>;
}

/** Options of {@link createCaptureStore}. */
export interface CaptureStoreOptions {
  /** A connection the caller owns (and closes). */
  readonly redis: Redis;
  /** Key prefix. Default `sb`. */
  readonly prefix?: string;
  /** How long a capture is kept, in days. Default {@link DEFAULT_CAPTURE_RETENTION_DAYS}. */
  readonly retentionDays?: number;
  /** Removes secrets from a value before it is stored (a `Redactor`'s `value`). Default: stored as given. */
  readonly redact?: <T>(value: T) => T;
  /** Milliseconds since the epoch, for `savedAt`. Default `Date.now`. */
  readonly now?: () => number;
}

/** Default of {@link CaptureStoreOptions.retentionDays}: 7 days. */
export const DEFAULT_CAPTURE_RETENTION_DAYS = 7;

/** The key of one captured call. */
export function captureKey(prefix: string, sessionId: string, turnId: string, step: number): string {
  return `${prefix}:cap:${sessionId}:${turnId}:${String(step)}`;
}

/** A {@link CaptureStore} in Redis: one `SET … EX` per call saved. */
export function createCaptureStore(options: CaptureStoreOptions): CaptureStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'sb';
  const ttlSeconds = Math.round((options.retentionDays ?? DEFAULT_CAPTURE_RETENTION_DAYS) * 86_400);
  const redact = options.redact ?? (<T>(value: T): T => value);
  const now = options.now ?? Date.now;
  return {
    async save(sessionId, turnId, step, call) {
      const stored: StoredCapture = { ...redact(call), savedAt: new Date(now()).toISOString() };
      await redis.set(captureKey(prefix, sessionId, turnId, step), JSON.stringify(stored), 'EX', ttlSeconds);
    },
    async read(sessionId, turnId, step) {
      const raw = await redis.get(captureKey(prefix, sessionId, turnId, step));
      return raw === null ? undefined : (JSON.parse(raw) as StoredCapture);
    },
  };
}
