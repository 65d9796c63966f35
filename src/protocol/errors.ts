/**
 * The one error root of switchboard. Every error the project raises on purpose is a
 * {@link SwitchboardError} with a stable string {@link ErrorCode}; anything else is converted at
 * the boundary with {@link toSwitchboardError}.
 */

/** Stable error codes. Never renamed once published: operators and tests match on them. */
export const ERROR_CODES = [
  'part_type.invalid_id',
  'part_type.duplicate',
  'part_type.unknown',
  'turn_state.invalid_id',
  'turn_state.duplicate',
  'turn_state.unknown',
  'respond.invalid_call',
  'tool.invalid_definition',
  'tool.duplicate',
  'tool.unknown',
  'tool.invalid_schema',
  'tool.invalid_policy',
  'tool.invalid_arguments',
  'tool.invalid_output',
  'tool.policy_failed',
  'envelope.invalid',
  'surface.duplicate',
  'state.invalid_patch',
  'state.invalid_definition',
  'agent_card.invalid',
  'config.invalid',
  'queue.closed',
  'session.lock_lost',
  'delivery.failed',
  'delivery.rate_limited',
  'delivery.permanent',
  'model.failed',
  'model.protocol_violation',
  'turn.limit_reached',
  'app.invalid',
  'http.bad_request',
  'http.not_found',
  'http.unauthorized',
  'http.forbidden',
  'http.unsupported_media_type',
  'http.too_many_streams',
  'http.request_timeout',
  'http.too_many_requests',
  'peer.failed',
  'channel.invalid',
  'channel.unavailable',
  'lease.lost',
  'lease.stale_fence',
  'render.invalid',
  'schedule.invalid',
  'artifact.too_large',
  'artifact.not_found',
  'redis.unavailable',
  'internal',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options of {@link SwitchboardError}. */
export interface SwitchboardErrorOptions {
  /** Structured facts about the failure, safe to log and to show an operator. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The original throwable, when this error wraps another. */
  readonly cause?: unknown;
  /** Whether trying the same thing again may succeed. Default `false`. */
  readonly retryable?: boolean;
}

/**
 * The root of every error switchboard raises.
 *
 * @example
 * throw new SwitchboardError('tool.unknown', 'No tool named "x"', { details: { name: 'x' } });
 */
export class SwitchboardError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Structured facts about the failure. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Whether trying again may succeed. */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  /** A plain JSON form for logs and API answers (no stack). */
  toJSON(): { code: ErrorCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Converts any throwable into a {@link SwitchboardError}, keeping the original as `cause`. */
export function toSwitchboardError(thrown: unknown, code: ErrorCode = 'internal'): SwitchboardError {
  if (thrown instanceof SwitchboardError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new SwitchboardError(code, message, { cause: thrown });
}
