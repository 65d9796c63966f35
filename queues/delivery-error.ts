/**
 * How a channel sender reports a failed send. Kept free of the queue library so channel code can
 * import it without pulling in BullMQ.
 */
import { SwitchboardError, type SwitchboardErrorOptions } from '../src/protocol/errors.ts';
import type { DeliveryErrorSummary } from './outbound-types.ts';

/** Options of {@link DeliveryError}. */
export interface DeliveryErrorOptions extends Omit<SwitchboardErrorOptions, 'retryable'> {
  /**
   * The provider will not accept this delivery however often it is tried (a 4xx other than 408/429,
   * an invalid address, a blocked recipient): no further attempts; the job stays failed.
   * Default `false`.
   */
  readonly permanent?: boolean;
  /**
   * The provider throttled the channel (HTTP 429 or an equivalent). With `retryAfterMs`, and when
   * the channel has a rate limit configured, the whole channel queue pauses for that long.
   * Default `false`.
   */
  readonly rateLimited?: boolean;
  /**
   * Earliest time to try again, in milliseconds from now, e.g. from a `Retry-After` header (see
   * {@link retryAfterMsFromHeader}). The next attempt comes no earlier than this, and no earlier
   * than the exponential backoff.
   */
  readonly retryAfterMs?: number;
  /** The provider's HTTP status, when there was one. */
  readonly status?: number;
  /**
   * The provider's own error code, e.g. Twilio `21610` (recipient opted out) or Slack
   * `channel_not_found`; shown to operators next to a failed delivery.
   */
  readonly providerCode?: string;
}

/**
 * A failed send. Codes: `delivery.permanent` when `permanent`, `delivery.rate_limited` when
 * `rateLimited`, `delivery.failed` otherwise. Everything but a permanent failure is retryable.
 *
 * @example
 * if (response.status === 429) {
 *   throw new DeliveryError('Twilio throttled us', {
 *     rateLimited: true,
 *     status: 429,
 *     retryAfterMs: retryAfterMsFromHeader(response.headers.get('retry-after')),
 *   });
 * }
 * if (body.code === 21610) {
 *   throw new DeliveryError('Recipient has opted out', { permanent: true, status: 400, providerCode: '21610' });
 * }
 */
export class DeliveryError extends SwitchboardError {
  /** No further attempts may succeed. */
  readonly permanent: boolean;
  /** Earliest time to try again, in milliseconds from when the error was raised. */
  readonly retryAfterMs: number | undefined;
  /** The provider's HTTP status, when there was one. */
  readonly status: number | undefined;
  /** The provider's own error code, when it gave one. */
  readonly providerCode: string | undefined;

  constructor(message: string, options: DeliveryErrorOptions = {}) {
    const permanent = options.permanent ?? false;
    const code = permanent ? 'delivery.permanent' : options.rateLimited === true ? 'delivery.rate_limited' : 'delivery.failed';
    const retryAfterMs = options.retryAfterMs === undefined ? undefined : Math.max(0, options.retryAfterMs);
    super(code, message, {
      retryable: !permanent,
      details: {
        ...options.details,
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(options.providerCode === undefined ? {} : { providerCode: options.providerCode }),
      },
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'DeliveryError';
    this.permanent = permanent;
    this.retryAfterMs = retryAfterMs;
    this.status = options.status;
    this.providerCode = options.providerCode;
  }
}

/**
 * What a sender's rejection says, as plain data: a {@link DeliveryError} with its retry hint,
 * provider code and status; another `SwitchboardError` with its code; anything else as
 * `delivery.failed` with its message.
 */
export function summarizeDeliveryError(thrown: unknown): DeliveryErrorSummary {
  if (thrown instanceof DeliveryError) {
    return {
      code: thrown.code,
      message: thrown.message,
      ...(thrown.retryAfterMs === undefined ? {} : { retryAfterMs: thrown.retryAfterMs }),
      ...(thrown.providerCode === undefined ? {} : { providerCode: thrown.providerCode }),
      ...(thrown.status === undefined ? {} : { status: thrown.status }),
    };
  }
  if (thrown instanceof SwitchboardError) return { code: thrown.code, message: thrown.message };
  return { code: 'delivery.failed', message: thrown instanceof Error ? thrown.message : String(thrown) };
}

/**
 * Reads an HTTP `Retry-After` value, either delay-seconds (`"120"`) or an HTTP-date, as
 * milliseconds from `nowMs`. `undefined` for a missing or unreadable value; never negative.
 *
 * @param nowMs - the current time in epoch milliseconds. Default `Date.now()`.
 */
export function retryAfterMsFromHeader(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
