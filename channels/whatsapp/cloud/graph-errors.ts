/**
 * What a Graph API error means for a send: Meta's error codes (`error.code` of the error JSON)
 * sorted into throttled, worth another try, and refused for good, then turned into the outbound
 * queue's {@link DeliveryError}. The table is Meta's published list of WhatsApp Cloud API codes,
 * reduced to the ones whose class is not what the HTTP status alone would say.
 */
import { DeliveryError, retryAfterMsFromHeader } from '../../../queues/delivery-error.ts';

/** How the outbound queue should treat a failed call. */
export type GraphErrorClass = 'rate-limited' | 'retryable' | 'permanent';

/** Meta's error code for a free-form message outside the 24-hour customer-service window. */
export const OUTSIDE_WINDOW_CODE = 131047;

/** Error codes whose class does not follow from the HTTP status. */
export const GRAPH_ERROR_CLASSES: ReadonlyMap<number, GraphErrorClass> = new Map<number, GraphErrorClass>([
  [4, 'rate-limited'], // application request limit reached
  [80007, 'rate-limited'], // WhatsApp Business Account rate limit
  [130429, 'rate-limited'], // Cloud API throughput reached
  [131048, 'rate-limited'], // spam rate limit: too many messages refused by recipients
  [131056, 'rate-limited'], // pair rate limit: too many messages to one recipient
  [1, 'retryable'], // unknown API error
  [2, 'retryable'], // API service temporarily down or overloaded
  [131000, 'retryable'], // something went wrong
  [131016, 'retryable'], // service temporarily unavailable
  [131057, 'retryable'], // business account in maintenance
  [133004, 'retryable'], // server temporarily unavailable
  [OUTSIDE_WINDOW_CODE, 'permanent'], // re-engagement: outside the 24-hour window
  [100, 'permanent'], // invalid parameter
  [190, 'permanent'], // access token expired or invalid
  [131026, 'permanent'], // message undeliverable (not a WhatsApp user, old app)
  [131051, 'permanent'], // unsupported message type
]);

/** Template errors: 132000 (parameter count) to 132999 (paused, disabled, missing translation …). */
function isTemplateError(code: number): boolean {
  return code >= 132000 && code <= 132999;
}

/**
 * The class of a failed Graph call from its HTTP status and Meta's error code (when the body had
 * one): HTTP 429 or a throttling code is `rate-limited`; the table next; then any other template
 * error `permanent`, 5xx and 408 `retryable`, any other answer `permanent`.
 *
 * @example
 * classifyGraphError(400, 131047) // 'permanent'
 * classifyGraphError(400, 130429) // 'rate-limited'
 */
export function classifyGraphError(status: number, code: number | undefined): GraphErrorClass {
  if (status === 429) return 'rate-limited';
  const listed = code === undefined ? undefined : GRAPH_ERROR_CLASSES.get(code);
  if (listed !== undefined) return listed;
  if (code !== undefined && isTemplateError(code)) return 'permanent';
  return status >= 500 || status === 408 ? 'retryable' : 'permanent';
}

/** The fields of Meta's error JSON (`{ error: { message, type, code, error_subcode, error_data, fbtrace_id } }`) this channel reads. */
export interface GraphErrorBody {
  readonly message?: string;
  readonly type?: string;
  readonly code?: number;
  readonly subcode?: number;
  /** `error_data.details`: Meta's longer explanation, when given. */
  readonly details?: string;
  readonly fbtraceId?: string;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const asNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

/** Reads Meta's error JSON; `{}` for a body that is not one. */
export function readGraphErrorBody(body: unknown): GraphErrorBody {
  const error = asRecord(asRecord(body)?.['error']);
  if (error === undefined) return {};
  const values = {
    message: asString(error['message']),
    type: asString(error['type']),
    code: asNumber(error['code']),
    subcode: asNumber(error['error_subcode']),
    details: asString(asRecord(error['error_data'])?.['details']),
    fbtraceId: asString(error['fbtrace_id']),
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** A failed Graph answer, as {@link graphDeliveryError} takes it. */
export interface GraphFailure {
  /** The HTTP status. */
  readonly status: number;
  /** The parsed JSON body, or `undefined` when it was not JSON. */
  readonly body: unknown;
  /** The `Retry-After` header, when sent. */
  readonly retryAfter: string | null;
  /** What was being done, for the message, e.g. `send a message`. */
  readonly action: string;
}

/**
 * The {@link DeliveryError} for a failed Graph answer: its class from {@link classifyGraphError},
 * Meta's code as `providerCode`, `Retry-After` as `retryAfterMs`. The message quotes Meta's
 * message and details (never the token).
 */
export function graphDeliveryError(failure: GraphFailure): DeliveryError {
  const error = readGraphErrorBody(failure.body);
  const kind = classifyGraphError(failure.status, error.code);
  const retryAfterMs = retryAfterMsFromHeader(failure.retryAfter);
  const said = [error.message, error.details].filter((part) => part !== undefined && part !== '').join(': ');
  const label = error.code === undefined ? `HTTP ${failure.status}` : `Graph ${error.code}${error.subcode === undefined ? '' : `/${error.subcode}`}`;
  const message = `WhatsApp Cloud API could not ${failure.action} (${label})${said === '' ? '' : `: ${said}`}`;
  return new DeliveryError(message, {
    status: failure.status,
    ...(error.code === undefined ? {} : { providerCode: String(error.code) }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(kind === 'permanent' ? { permanent: true } : {}),
    ...(kind === 'rate-limited' ? { rateLimited: true } : {}),
    ...(error.fbtraceId === undefined ? {} : { details: { fbtraceId: error.fbtraceId } }),
  });
}
