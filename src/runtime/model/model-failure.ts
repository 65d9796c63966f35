import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

/** What kind of failure a model call met, as far as the person and an operator care. */
export type ModelFailureKind =
  | 'overloaded'
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'aborted'
  | 'rejected';

/** A model call's failure, classified. */
export interface ModelFailure {
  readonly kind: ModelFailureKind;
  /** HTTP status, when the API answered with one (not for an `error` event sent mid-stream). */
  readonly status: number | undefined;
  /** The API's error type, e.g. `overloaded_error`, when it sent an error body. */
  readonly apiType: string | undefined;
  /** Whether the same call may succeed when made again. */
  readonly retryable: boolean;
  /** What the person is told; names the cause in plain words. */
  readonly userMessage: string;
}

const USER_MESSAGES: Readonly<Record<ModelFailureKind, string>> = {
  overloaded: 'The model is overloaded right now, so I could not answer. Please try again in a moment.',
  rate_limited: 'The model is receiving too many requests right now, so I could not answer. Please try again in a moment.',
  server_error: 'The model service had an internal error, so I could not answer. Please try again in a moment.',
  timeout: 'The model did not answer in time, so I could not answer. Please try again in a moment.',
  connection: 'The connection to the model was lost, so I could not answer. Please try again in a moment.',
  aborted: 'The model call was stopped before it finished.',
  // 4xx other than 429: a bad key, a bad request; nothing the person can change by asking again.
  rejected: 'Sorry, the assistant is unavailable right now: the model service rejected the request.',
};

/** The API's error type from an SDK error's body (`{ type: 'error', error: { type } }`). */
function apiTypeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const inner = (body as { error?: unknown }).error;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const type = (inner as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

function kindOf(error: unknown, status: number | undefined, apiType: string | undefined): ModelFailureKind {
  if (error instanceof APIUserAbortError) return 'aborted';
  if (error instanceof APIConnectionTimeoutError) return 'timeout';
  if (error instanceof APIConnectionError) return 'connection';
  if (status === 529 || apiType === 'overloaded_error') return 'overloaded';
  if (status === 429 || apiType === 'rate_limit_error') return 'rate_limited';
  if ((status !== undefined && status >= 500) || apiType === 'api_error') return 'server_error';
  if (status !== undefined || apiType !== undefined) return 'rejected';
  // Not an API answer: a stream cut mid-way ("terminated"), a socket reset, a malformed event.
  return 'connection';
}

/**
 * Classifies what a model call threw: an SDK `APIError` by its HTTP status or, for an `error`
 * event sent mid-stream (no status), by the API's error type; SDK connection and timeout errors;
 * anything else (a stream cut mid-way) as a lost connection. Only `rejected` and `aborted` are not
 * retryable.
 */
export function classifyModelFailure(error: unknown): ModelFailure {
  const status = error instanceof APIError ? (error.status as number | undefined) : undefined;
  const apiType = error instanceof APIError ? apiTypeOf(error.error) : undefined;
  const kind = kindOf(error, status, apiType);
  return { kind, status, apiType, retryable: kind !== 'rejected' && kind !== 'aborted', userMessage: USER_MESSAGES[kind] };
}
