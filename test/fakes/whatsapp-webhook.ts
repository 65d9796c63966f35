/**
 * What Meta sends *to* a service on the WhatsApp Cloud API: webhook bodies built from the recorded
 * payloads in `test/fixtures/whatsapp/` (Meta's documented shapes, fake identifiers), the
 * `X-Hub-Signature-256` header they carry, and a helper that posts them as Meta does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hubSignature } from '../../channels/whatsapp/cloud/signature.ts';

/** Folder of the recorded payloads. */
const FIXTURES = new URL('../fixtures/whatsapp/', import.meta.url);

/** The names of the recorded payloads. */
export type WhatsAppFixtureName =
  | 'webhook-text'
  | 'webhook-image'
  | 'webhook-voice'
  | 'webhook-document'
  | 'webhook-button-reply'
  | 'webhook-list-reply'
  | 'webhook-template-quick-reply'
  | 'webhook-location'
  | 'webhook-contacts'
  | 'webhook-reaction'
  | 'webhook-unsupported'
  | 'webhook-status-delivered'
  | 'webhook-status-failed-131047'
  | 'graph-send-ok'
  | 'graph-media-upload'
  | 'graph-media-info'
  | 'graph-phone-number'
  | 'graph-error-131047'
  | 'graph-error-130429'
  | 'graph-error-131000'
  | 'graph-error-190';

/** The recorded payloads that are webhooks with one message. */
export type MessageFixtureName = Extract<WhatsAppFixtureName, `webhook-${string}`> & Exclude<WhatsAppFixtureName, `webhook-status-${string}`>;

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** The `value` of a `messages` change. */
export interface WebhookValue {
  messaging_product: 'whatsapp';
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile: { name: string }; wa_id: string }[];
  messages?: JsonObject[];
  statuses?: JsonObject[];
}

/** A Cloud API webhook body. */
export interface WebhookBody {
  object: string;
  entry: { id: string; changes: { value: WebhookValue; field: string }[] }[];
}

/** The sender of the fixtures, digits only. */
export const FIXTURE_WA_ID = '16505551234';

/** A fresh copy of a recorded payload from `test/fixtures/whatsapp/{name}.json`. */
export function readWhatsAppFixture(name: WhatsAppFixtureName): JsonObject {
  const value = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`test/fixtures/whatsapp/${name}.json is not a JSON object`);
  return value as JsonObject;
}

/** A message id shaped like Meta's: `wamid.` and base64. */
export function newWamid(): string {
  return `wamid.HBgL${randomBytes(30).toString('base64')}`;
}

function webhookFixture(name: WhatsAppFixtureName): { body: WebhookBody; value: WebhookValue } {
  const body = readWhatsAppFixture(name) as unknown as WebhookBody;
  const value = body.entry[0]?.changes[0]?.value;
  if (value === undefined) throw new Error(`${name}.json has no change`);
  return { body, value };
}

/** Who writes, to which number, and the message's own values. Every field has the fixture's value by default. */
export interface MessageOptions {
  /** The business number the change is for. */
  readonly phoneNumberId?: string;
  /** The sender, digits or E.164 (`+` dropped). Default the fixtures' sender, {@link FIXTURE_WA_ID}. */
  readonly from?: string;
  /** The sender's profile name; `null` sends no `contacts`. */
  readonly name?: string | null;
  /** Default a fresh {@link newWamid}. */
  readonly id?: string;
  /** Unix seconds. Default now. */
  readonly timestamp?: number;
  /** `context.id`: the quoted message; `null` removes the fixture's context. */
  readonly contextId?: string | null;
  /** Fields merged into the message last (e.g. `{ text: { body: 'hi' } }`). */
  readonly fields?: JsonObject;
}

/**
 * A webhook with one message, from a recorded payload with `options` filled in.
 *
 * @example
 * const body = messageWebhook('webhook-text', { from: '+447700900123', fields: { text: { body: 'Hello' } } });
 */
export function messageWebhook(fixture: MessageFixtureName, options: MessageOptions = {}): WebhookBody {
  const { body, value } = webhookFixture(fixture);
  const from = (options.from ?? FIXTURE_WA_ID).replace(/^\+/, '');
  if (options.phoneNumberId !== undefined) value.metadata.phone_number_id = options.phoneNumberId;
  if (options.name === null) delete value.contacts;
  else value.contacts = [{ profile: { name: options.name ?? value.contacts?.[0]?.profile.name ?? 'Sheena Nelson' }, wa_id: from }];
  const recorded = value.messages?.[0] ?? {};
  const message: JsonObject = { ...recorded, from, id: options.id ?? newWamid(), timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)), ...options.fields };
  if (options.contextId === null) delete message['context'];
  else if (options.contextId !== undefined) message['context'] = { from: value.metadata.display_phone_number, id: options.contextId };
  value.messages = [message];
  return body;
}

/** A text message. */
export function textWebhook(text: string, options: MessageOptions = {}): WebhookBody {
  return messageWebhook('webhook-text', { ...options, fields: { text: { body: text }, ...options.fields } });
}

/** An image (`image/jpeg` unless given) whose bytes are at `mediaId` on the Graph API. */
export function imageWebhook(media: { mediaId: string; mimeType?: string; caption?: string }, options: MessageOptions = {}): WebhookBody {
  const image = { mime_type: media.mimeType ?? 'image/jpeg', sha256: 'c2hhMjU2', id: media.mediaId, ...(media.caption === undefined ? {} : { caption: media.caption }) };
  return messageWebhook('webhook-image', { ...options, fields: { image, ...options.fields } });
}

/** A voice note (`audio` with `voice: true`, `audio/ogg; codecs=opus`). */
export function voiceWebhook(mediaId: string, options: MessageOptions = {}): WebhookBody {
  return messageWebhook('webhook-voice', { ...options, fields: { audio: { mime_type: 'audio/ogg; codecs=opus', sha256: 'c2hhMjU2', id: mediaId, voice: true }, ...options.fields } });
}

/** A tap on a reply button (`interactive.button_reply`) of the message `contextId`. */
export function buttonReplyWebhook(button: { id: string; title: string }, options: MessageOptions = {}): WebhookBody {
  return messageWebhook('webhook-button-reply', { ...options, fields: { interactive: { type: 'button_reply', button_reply: button }, ...options.fields } });
}

/** A tap on a template's quick-reply button (`type: 'button'`, `button.payload`). */
export function quickReplyWebhook(button: { payload: string; text: string }, options: MessageOptions = {}): WebhookBody {
  return messageWebhook('webhook-template-quick-reply', { ...options, fields: { button, ...options.fields } });
}

/** One delivery status of a sent message. */
export interface StatusOptions {
  readonly wamid: string;
  readonly status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The recipient, digits or E.164. Default the fixtures' sender. */
  readonly recipient?: string;
  /** Unix seconds. Default now. */
  readonly timestamp?: number;
  /** The error of a `failed` status. Default 131047 (the recorded one). */
  readonly error?: { code: number; title: string };
  readonly phoneNumberId?: string;
  /** The `biz_opaque_callback_data` the send carried, which Meta echoes in its statuses. Default none. */
  readonly callbackData?: string;
}

/** A webhook with statuses, from the recorded `delivered` (or `failed`) payload. */
export function statusWebhook(...statuses: readonly StatusOptions[]): WebhookBody {
  const { body, value } = webhookFixture('webhook-status-delivered');
  const failed = webhookFixture('webhook-status-failed-131047').value.statuses?.[0] ?? {};
  value.statuses = statuses.map((status) => {
    const recorded = status.status === 'failed' ? failed : (value.statuses?.[0] ?? {});
    const entry: JsonObject = {
      ...recorded,
      id: status.wamid,
      status: status.status,
      timestamp: String(status.timestamp ?? Math.floor(Date.now() / 1000)),
      recipient_id: (status.recipient ?? FIXTURE_WA_ID).replace(/^\+/, ''),
    };
    if (status.error !== undefined) entry['errors'] = [{ code: status.error.code, title: status.error.title, message: status.error.title }];
    if (status.callbackData !== undefined) entry['biz_opaque_callback_data'] = status.callbackData;
    return entry;
  });
  const phoneNumberId = statuses[0]?.phoneNumberId;
  if (phoneNumberId !== undefined) value.metadata.phone_number_id = phoneNumberId;
  return body;
}

/**
 * The headers Meta sends with `body`: JSON, and `X-Hub-Signature-256` computed with the app secret.
 *
 * @example
 * await fetch(url, { method: 'POST', headers: signedWebhook(raw, secret), body: raw });
 */
export function signedWebhook(body: string | Uint8Array, appSecret: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'facebookexternalua',
    'x-hub-signature-256': hubSignature(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, appSecret),
  };
}

/** What a webhook POST was answered with. */
export interface WebhookAnswer {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: string | null;
}

/** Options of {@link postWhatsAppWebhook}. */
export interface PostWebhookOptions {
  /** The signing key. */
  readonly appSecret: string;
  /** Replaces the computed signature header (a forged one); `null` sends none. */
  readonly signature?: string | null;
}

/** POSTs `body` (an object is sent as JSON) signed as Meta signs it. */
export async function postWhatsAppWebhook(url: string, body: WebhookBody | string, options: PostWebhookOptions): Promise<WebhookAnswer> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const headers = signedWebhook(raw, options.appSecret);
  if (options.signature === null) delete headers['x-hub-signature-256'];
  else if (options.signature !== undefined) headers['x-hub-signature-256'] = options.signature;
  const response = await fetch(url, { method: 'POST', headers, body: raw });
  return { status: response.status, body: await response.text(), retryAfter: response.headers.get('retry-after') };
}
