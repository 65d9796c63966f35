/**
 * Caps on the web chat's event streams (Server-Sent Events) held open by one process: per browser
 * identity and in total. A stream takes a slot before its answer starts and gives it back when it
 * closes.
 */
import { SwitchboardError } from '../../../src/protocol/errors.ts';

/** Default of {@link StreamSlotLimits.maxPerIdentity}: 8 open streams per browser identity (tabs). */
export const DEFAULT_MAX_STREAMS_PER_IDENTITY = 8;

/** Default of {@link StreamSlotLimits.maxTotal}: 2000 open streams per process. */
export const DEFAULT_MAX_STREAMS_TOTAL = 2000;

/** Default of {@link StreamSlotLimits.retryAfterSeconds}: a refused client is told to wait 10 s. */
export const DEFAULT_STREAM_RETRY_AFTER_SECONDS = 10;

/** Limits of {@link createStreamSlots}. */
export interface StreamSlotLimits {
  /** Open streams per browser identity. Default {@link DEFAULT_MAX_STREAMS_PER_IDENTITY}. */
  readonly maxPerIdentity?: number;
  /** Open streams in all. Default {@link DEFAULT_MAX_STREAMS_TOTAL}. */
  readonly maxTotal?: number;
  /** The `Retry-After` of a refusal, in seconds. Default {@link DEFAULT_STREAM_RETRY_AFTER_SECONDS}. */
  readonly retryAfterSeconds?: number;
}

/** Gives the slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** The open-stream counters of one process; see {@link createStreamSlots}. */
export interface StreamSlots {
  /**
   * Takes a slot for the browser identity `key`.
   * @throws SwitchboardError `http.too_many_streams` (429, with `details.retryAfterSeconds`) when
   *   `key` or the process is at its limit (`details.scope` `identity` or `process`).
   */
  acquire(key: string): ReleaseSlot;
  /** Throws as {@link StreamSlots.acquire} would, without taking a slot (for `HEAD`). */
  check(key: string): void;
  /** Open streams of `key`, or of the process when no key is given. */
  open(key?: string): number;
}

/** Creates the counters, all at zero. */
export function createStreamSlots(limits: StreamSlotLimits = {}): StreamSlots {
  const maxPerIdentity = limits.maxPerIdentity ?? DEFAULT_MAX_STREAMS_PER_IDENTITY;
  const maxTotal = limits.maxTotal ?? DEFAULT_MAX_STREAMS_TOTAL;
  const retryAfterSeconds = limits.retryAfterSeconds ?? DEFAULT_STREAM_RETRY_AFTER_SECONDS;
  const byKey = new Map<string, number>();
  let total = 0;

  const check = (key: string): void => {
    const scope = (byKey.get(key) ?? 0) >= maxPerIdentity ? 'identity' : total >= maxTotal ? 'process' : undefined;
    if (scope === undefined) return;
    const limit = scope === 'identity' ? maxPerIdentity : maxTotal;
    const message =
      scope === 'identity'
        ? `This browser has ${String(limit)} event streams open already, the most allowed. Close a tab, or try again later.`
        : 'The server has as many event streams open as it can hold. Try again later.';
    throw new SwitchboardError('http.too_many_streams', message, { details: { scope, limit, retryAfterSeconds }, retryable: true });
  };

  return {
    check,
    acquire(key) {
      check(key);
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (byKey.get(key) ?? 1) - 1;
        if (left === 0) byKey.delete(key);
        else byKey.set(key, left);
      };
    },
    open: (key) => (key === undefined ? total : (byKey.get(key) ?? 0)),
  };
}
