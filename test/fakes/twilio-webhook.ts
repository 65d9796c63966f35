/**
 * What Twilio sends *to* a service: signed, form-encoded webhooks (inbound SMS / MMS, status
 * callbacks), built from the recorded payloads in `test/fixtures/twilio/`. Also the small wire
 * helpers the fake Twilio API shares (sids, segment counts, fixtures).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';
import type { TwilioMessageStatus, TwilioParams, TwilioWebhookResponse } from './fake-twilio-types.ts';

/** Folder of the recorded Twilio payloads (fake identifiers, real shapes). */
const FIXTURES = new URL('../fixtures/twilio/', import.meta.url);

/** The names of the recorded payloads. */
export type TwilioFixtureName =
  | 'inbound-sms'
  | 'inbound-mms'
  | 'status-callback-delivered'
  | 'status-callback-undelivered-30003'
  | 'message-create-201'
  | 'error-21610'
  | 'error-20429'
  | 'account';

/** A fresh copy of a recorded payload from `test/fixtures/twilio/{name}.json`. */
export function readTwilioFixture(name: TwilioFixtureName): Record<string, unknown> {
  const value = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`test/fixtures/twilio/${name}.json is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** A recorded webhook payload: every value a string. */
function readParamsFixture(name: TwilioFixtureName): Record<string, string> {
  const value = readTwilioFixture(name);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw new Error(`${name}.json: ${key} is not a string`);
  }
  return value as Record<string, string>;
}

/** A Twilio sid: the two-letter prefix (`SM`, `MM`, `ME`, `PN`, `RQ` …) and 32 random hex digits. */
export function twilioSid(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

/** GSM 03.38 default alphabet: one septet each. */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** GSM 03.38 extension table: two septets each (escape + char). */
const GSM_EXTENDED = new Set('\f^{}\\[~]|€');

/** Code units each character takes: septets for GSM-7, UTF-16 units for UCS-2. */
function encodedUnits(body: string): { readonly units: number[]; readonly single: number; readonly multi: number } {
  const chars = Array.from(body); // code points: a surrogate pair is one character
  if (chars.every((char) => GSM_BASIC.has(char) || GSM_EXTENDED.has(char))) {
    return { units: chars.map((char) => (GSM_EXTENDED.has(char) ? 2 : 1)), single: 160, multi: 153 };
  }
  return { units: chars.map((char) => char.length), single: 70, multi: 67 };
}

/**
 * The number of SMS segments Twilio bills for `body`: GSM-7 when every character is in the GSM
 * alphabet (160 septets in one segment, 153 per segment when concatenated; extension characters
 * such as `€` take two), else UCS-2 (70 / 67 UTF-16 units). A character is never split across two
 * segments. At least 1. Twilio's optional "smart encoding" substitutions are not modelled.
 */
export function smsSegments(body: string): number {
  const { units, single, multi } = encodedUnits(body);
  const total = units.reduce((sum, unit) => sum + unit, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const unit of units) {
    if (used + unit > multi) {
      segments += 1;
      used = 0;
    }
    used += unit;
  }
  return segments;
}

/**
 * Form-encodes params as Twilio's webhooks are (`application/x-www-form-urlencoded`, spaces as
 * `+`), repeating a name for each value of an array.
 */
export function encodeTwilioForm(params: TwilioParams): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of typeof value === 'string' ? [value] : value) form.append(name, item);
  }
  return form.toString();
}

/** Parses a form body into {@link TwilioParams}: repeated names become arrays. */
export function parseTwilioForm(raw: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const previous = params[name];
    if (previous === undefined) params[name] = value;
    else params[name] = typeof previous === 'string' ? [previous, value] : [...previous, value];
  }
  return params;
}

/** Options of {@link postTwilioWebhook}. */
export interface PostTwilioWebhookOptions {
  /** Where to POST. */
  readonly url: string;
  /** The public URL the signature covers (what Twilio was configured with). Default `url`. */
  readonly signedUrl?: string;
  /** The account's auth token, the signing key. */
  readonly authToken: string;
  readonly params: TwilioParams;
  readonly headers?: {
    /** `I-Twilio-Idempotency-Token`. Default: a fresh UUID, as Twilio sends one on every webhook; `null` sends none. */
    readonly idempotencyToken?: string | null | undefined;
  };
  /** Replaces the computed `X-Twilio-Signature` (a forged one); `null` sends no signature header. */
  readonly signature?: string | null | undefined;
}

/**
 * POSTs a webhook the way Twilio does: form-encoded params
 * (`application/x-www-form-urlencoded; charset=UTF-8`), `X-Twilio-Signature` computed with
 * `twilio.getExpectedTwilioSignature(authToken, signedUrl, params)` (imported from
 * `twilio/lib/webhooks/webhooks.js`, the same function, typed), `I-Twilio-Idempotency-Token`,
 * and Twilio's `User-Agent`. Redirects are not followed.
 */
export async function postTwilioWebhook(options: PostTwilioWebhookOptions): Promise<TwilioWebhookResponse> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
    'user-agent': 'TwilioProxy/1.1',
    'x-home-region': 'us1',
    accept: '*/*',
  };
  const signature =
    options.signature === undefined
      ? getExpectedTwilioSignature(options.authToken, options.signedUrl ?? options.url, options.params)
      : options.signature;
  if (signature !== null) headers['x-twilio-signature'] = signature;
  const token = options.headers?.idempotencyToken === undefined ? randomUUID() : options.headers.idempotencyToken;
  if (token !== null) headers['i-twilio-idempotency-token'] = token;
  const response = await fetch(options.url, {
    method: 'POST',
    headers,
    body: encodeTwilioForm(options.params),
    redirect: 'manual',
  });
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
}

/** One media item of an inbound MMS. */
export interface InboundMedia {
  /** E.g. the URL `FakeTwilio.addMedia` returned. */
  readonly url: string;
  readonly contentType: string;
}

/** Options of {@link inboundSmsParams}. */
export interface InboundSmsOptions {
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly accountSid: string;
  /**
   * Default: the `MM…` sid in the first media URL when there is one, else a fresh `MM` (with media)
   * or `SM` (without) sid.
   */
  readonly messageSid?: string;
  readonly media?: readonly InboundMedia[];
  /** Sent when the receiving number belongs to a Messaging Service. */
  readonly messagingServiceSid?: string;
  /** Added last, overriding anything (e.g. `{ OptOutType: 'STOP' }`, `{ FromCountry: 'GB' }`). */
  readonly extra?: Readonly<Record<string, string>>;
}

const MEDIA_PARAM = /^Media(Url|ContentType)\d+$/;

function inboundMessageSid(options: InboundSmsOptions): string {
  if (options.messageSid !== undefined) return options.messageSid;
  const fromUrl = /\/Messages\/(MM[0-9a-f]{32})\//.exec(options.media?.[0]?.url ?? '')?.[1];
  return fromUrl ?? twilioSid(options.media !== undefined && options.media.length > 0 ? 'MM' : 'SM');
}

function mediaParams(media: readonly InboundMedia[]): Record<string, string> {
  const params: Record<string, string> = {};
  media.forEach((item, index) => {
    params[`MediaContentType${index}`] = item.contentType;
    params[`MediaUrl${index}`] = item.url;
  });
  return params;
}

/**
 * The full parameter set Twilio posts to a number's SMS webhook for an inbound SMS (or MMS, with
 * `media`): the recorded `inbound-sms.json` / `inbound-mms.json` with these values filled in. The
 * location fields (`FromCity`, `ToState` …) keep the recorded US values unless `extra` replaces them.
 */
export function inboundSmsParams(options: InboundSmsOptions): Record<string, string> {
  const media = options.media ?? [];
  const template = readParamsFixture(media.length > 0 ? 'inbound-mms' : 'inbound-sms');
  const sid = inboundMessageSid(options);
  const base = Object.fromEntries(Object.entries(template).filter(([name]) => !MEDIA_PARAM.test(name)));
  const params: Record<string, string> = {
    ...mediaParams(media),
    ...base,
    SmsMessageSid: sid,
    SmsSid: sid,
    MessageSid: sid,
    NumMedia: String(media.length),
    Body: options.body,
    NumSegments: String(smsSegments(options.body)),
    AccountSid: options.accountSid,
    From: options.from,
    To: options.to,
  };
  if (options.messagingServiceSid !== undefined) params['MessagingServiceSid'] = options.messagingServiceSid;
  return { ...params, ...options.extra };
}

/** The message a status callback reports on. */
export interface StatusCallbackMessage {
  readonly sid: string;
  readonly accountSid: string;
  readonly from: string;
  readonly to: string;
  readonly messagingServiceSid?: string | undefined;
}

/** Default `ErrorCode` of failing statuses: 30003 (unreachable handset), 30008 (unknown error). */
export function defaultStatusErrorCode(status: TwilioMessageStatus): number | undefined {
  if (status === 'undelivered') return 30003;
  if (status === 'failed') return 30008;
  return undefined;
}

/**
 * The parameters of a status callback, from the recorded `status-callback-delivered.json` (or
 * `status-callback-undelivered-30003.json` for `failed` / `undelivered`, which carry `ErrorCode`).
 */
export function statusCallbackParams(
  message: StatusCallbackMessage,
  status: TwilioMessageStatus,
  errorCode: number | undefined = defaultStatusErrorCode(status),
): Record<string, string> {
  const failing = status === 'failed' || status === 'undelivered';
  const template = readParamsFixture(failing ? 'status-callback-undelivered-30003' : 'status-callback-delivered');
  const params: Record<string, string> = {
    ...template,
    SmsSid: message.sid,
    SmsStatus: status,
    MessageStatus: status,
    To: message.to,
    MessageSid: message.sid,
    AccountSid: message.accountSid,
    From: message.from,
  };
  if (failing && errorCode !== undefined) params['ErrorCode'] = String(errorCode);
  else delete params['ErrorCode'];
  if (message.messagingServiceSid !== undefined) params['MessagingServiceSid'] = message.messagingServiceSid;
  return params;
}
