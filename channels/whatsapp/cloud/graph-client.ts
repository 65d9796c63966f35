/**
 * The WhatsApp Business Cloud API client: the few Graph API calls the channel makes, over `fetch`
 * with the bearer token, each bounded in time. Every failure is a {@link DeliveryError} classed by
 * `graph-errors.ts`. Media bytes are fetched only from the API's own host or Meta's media host, so
 * the token is never sent anywhere else.
 */
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { graphDeliveryError } from './graph-errors.ts';
import { readCapped } from '../../kit/read-capped.ts';

/** Meta's media host: the `url` of a media object points there. */
export const META_MEDIA_HOST = 'lookaside.fbsbx.com';

/** Default longest Graph call (answer and body), in ms. */
export const DEFAULT_GRAPH_TIMEOUT_MS = 15_000;

/** Options of {@link createGraphClient}. */
export interface GraphClientOptions {
  /** `WHATSAPP_API_URL`: base URL with the version, no trailing slash, e.g. `https://graph.facebook.com/v26.0`. */
  readonly apiUrl: string;
  /** `WHATSAPP_TOKEN`: sent as `Authorization: Bearer …`. */
  readonly token: string;
  /** `WHATSAPP_PHONE_NUMBER_ID`: the business number messages are sent from. */
  readonly phoneNumberId: string;
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Longest call, in ms. Default {@link DEFAULT_GRAPH_TIMEOUT_MS} (15 s). */
  readonly timeoutMs?: number;
}

/** One message as `POST /{phone-number-id}/messages` takes it, without `messaging_product` (the client adds it). */
export interface GraphMessage {
  /** The recipient's number, digits only (`447700900123`). */
  readonly to: string;
  /** `text`, `image`, `document`, `interactive`, `template` … */
  readonly type: string;
  /** The type's own object (`text: { body }` …) and `context`. */
  readonly [field: string]: unknown;
}

/** A file to upload. */
export interface GraphUpload {
  readonly bytes: Uint8Array;
  /** E.g. `image/png`; Meta checks it against the bytes. */
  readonly mimeType: string;
  /** The file name sent with the upload. */
  readonly name: string;
}

/** What `GET /{media-id}` says about a medium. */
export interface GraphMediaInfo {
  /** Where the bytes are, on Meta's media host; valid for about five minutes. */
  readonly url: string;
  readonly mimeType: string;
  /** In bytes, when given. */
  readonly fileSize?: number;
}

/** The business number, as `GET /{phone-number-id}` reports it. */
export interface GraphPhoneNumber {
  readonly id: string;
  /** E.g. `+1 555-078-3881`. */
  readonly displayPhoneNumber: string;
  /** The business name Meta approved for the number. */
  readonly verifiedName: string;
  /** `GREEN`, `YELLOW`, `RED` or `UNKNOWN`, when given. */
  readonly qualityRating?: string;
}

/** The Graph API calls of the channel. Every rejection is a {@link DeliveryError}, or `artifact.too_large` from `download`. */
export interface GraphClient {
  /** Sends one message; resolves with its id (`wamid.…`). */
  sendMessage(message: GraphMessage): Promise<string>;
  /** Uploads a file for sending; resolves with the media id. */
  uploadMedia(upload: GraphUpload): Promise<string>;
  /** Where a received (or uploaded) medium's bytes are. */
  mediaInfo(mediaId: string): Promise<GraphMediaInfo>;
  /**
   * The bytes at a media URL, with the token; only from the API's host or {@link META_MEDIA_HOST}.
   * @throws SwitchboardError `artifact.too_large` past `maxBytes` (bytes).
   */
  download(url: string, maxBytes: number): Promise<Buffer>;
  /** The sending number's display number, verified name and quality rating. */
  phoneNumber(): Promise<GraphPhoneNumber>;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The error for a call that got no answer (network failure, timeout). */
function unreachable(action: string, error: unknown, timeoutMs: number): DeliveryError {
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  // fetch's own message is only "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND …).
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${'code' in error.cause && typeof error.cause.code === 'string' ? error.cause.code : error.cause.message})` : '';
  const reason = timedOut ? `no answer within ${timeoutMs / 1000} s` : `${error instanceof Error ? error.message : String(error)}${cause}`;
  return new DeliveryError(`WhatsApp Cloud API could not be reached to ${action}: ${reason}`, { cause: error });
}

/** A malformed success answer: not retried, since the call may have taken effect. */
function malformed(action: string, what: string): DeliveryError {
  return new DeliveryError(`WhatsApp Cloud API answered ${action} without ${what}`, { permanent: true });
}

/** Whether the token may be sent to `url`: https on Meta's media host, or the API's own origin. */
export function isTrustedMediaUrl(url: string, apiUrl: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') return false;
  return (parsed.protocol === 'https:' && parsed.hostname === META_MEDIA_HOST) || parsed.origin === new URL(apiUrl).origin;
}

const tooLarge = (maxBytes: number): SwitchboardError =>
  new SwitchboardError('artifact.too_large', `The medium is over ${maxBytes} bytes.`, { details: { maxBytes } });

/** The bytes of a 2xx answer, refused past `maxBytes` (declared or counted). */
async function bytesOf(response: Response, maxBytes: number): Promise<Buffer> {
  if (Number(response.headers.get('content-length') ?? '0') > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(maxBytes);
  }
  const bytes = response.body === null ? Buffer.alloc(0) : await readCapped(response.body, maxBytes);
  if (bytes === undefined) throw tooLarge(maxBytes);
  return bytes;
}

/**
 * Creates the client.
 *
 * @example
 * const graph = createGraphClient({ apiUrl: env.apiUrl, token: env.token, phoneNumberId: env.phoneNumberId });
 * const wamid = await graph.sendMessage({ to: '447700900123', type: 'text', text: { body: 'Hello' } });
 */
export function createGraphClient(options: GraphClientOptions): GraphClient {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS;
  const auth = { authorization: `Bearer ${options.token}` };
  const numberUrl = `${options.apiUrl}/${encodeURIComponent(options.phoneNumberId)}`;

  /** One call: the parsed JSON answer of a 2xx, else the classed error. A `json` or `form` body makes it a POST. */
  async function call(action: string, url: string, send: { json?: unknown; form?: FormData } = {}): Promise<Record<string, unknown>> {
    const payload = send.json === undefined ? send.form : JSON.stringify(send.json);
    const headers = send.json === undefined ? auth : { ...auth, 'content-type': 'application/json' };
    let response: Response;
    let body: unknown;
    try {
      response = await fetchImpl(url, { method: payload === undefined ? 'GET' : 'POST', headers, ...(payload === undefined ? {} : { body: payload }), redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
      body = await jsonOf(response);
    } catch (error) {
      throw unreachable(action, error, timeoutMs);
    }
    if (!response.ok) throw graphDeliveryError({ status: response.status, body, retryAfter: response.headers.get('retry-after'), action });
    return asRecord(body);
  }

  return {
    async sendMessage(message) {
      const action = 'send a message';
      const answer = await call(action, `${numberUrl}/messages`, { json: { messaging_product: 'whatsapp', recipient_type: 'individual', ...message } });
      const messages = answer['messages'];
      const id = asString(asRecord(Array.isArray(messages) ? (messages as unknown[])[0] : undefined)['id']);
      if (id === undefined) throw malformed(action, 'a message id');
      return id;
    },

    async uploadMedia(upload) {
      const action = 'upload a medium';
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('type', upload.mimeType);
      form.append('file', new Blob([upload.bytes], { type: upload.mimeType }), upload.name);
      const id = asString((await call(action, `${numberUrl}/media`, { form }))['id']);
      if (id === undefined) throw malformed(action, 'a media id');
      return id;
    },

    async mediaInfo(mediaId) {
      const action = 'look up a medium';
      const answer = await call(action, `${options.apiUrl}/${encodeURIComponent(mediaId)}`);
      const url = asString(answer['url']);
      if (url === undefined) throw malformed(action, 'a media URL');
      const size = Number(answer['file_size']);
      return { url, mimeType: asString(answer['mime_type']) ?? 'application/octet-stream', ...(Number.isFinite(size) && size >= 0 ? { fileSize: size } : {}) };
    },

    async download(url, maxBytes) {
      const action = 'download a medium';
      if (!isTrustedMediaUrl(url, options.apiUrl)) {
        throw new DeliveryError(`WhatsApp Cloud API gave a media URL off Meta's hosts (${URL.canParse(url) ? new URL(url).host : 'malformed'}); the token is not sent there`, { permanent: true });
      }
      try {
        // Meta's media host wants a User-Agent; a redirect would take the token elsewhere, so none is followed.
        const response = await fetchImpl(url, { headers: { ...auth, 'user-agent': 'switchboard' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) throw graphDeliveryError({ status: response.status, body: await jsonOf(response), retryAfter: response.headers.get('retry-after'), action });
        return await bytesOf(response, maxBytes);
      } catch (error) {
        if (error instanceof SwitchboardError) throw error;
        throw unreachable(action, error, timeoutMs);
      }
    },

    async phoneNumber() {
      const action = 'read the phone number';
      const answer = await call(action, `${numberUrl}?fields=display_phone_number,verified_name,quality_rating`);
      const displayPhoneNumber = asString(answer['display_phone_number']);
      if (displayPhoneNumber === undefined) throw malformed(action, 'display_phone_number');
      const qualityRating = asString(answer['quality_rating']);
      return {
        id: asString(answer['id']) ?? options.phoneNumberId,
        displayPhoneNumber,
        verifiedName: asString(answer['verified_name']) ?? '',
        ...(qualityRating === undefined ? {} : { qualityRating }),
      };
    },
  };
}
