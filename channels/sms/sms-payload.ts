/**
 * One outgoing Twilio message as the SMS renderer writes it and the sender reads it back from the
 * outbound queue: a plain JSON object (it is kept in the queue and in the delivery ledger).
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';

/** What a message is. */
export type SmsKind = 'answer' | 'approval-request' | 'approval-update' | 'notice';

/**
 * One rendered message. A type alias (not an interface), so that it is a `ChannelMessage`
 * (`Readonly<Record<string, unknown>>`).
 */
export type SmsPayload = {
  /** The recipient: an E.164 number (`+447700900123`), or `whatsapp:+447700900123` for WhatsApp through Twilio. */
  readonly to: string;
  /** The text; never blank, at most {@link MAX_BODY_CHARS} UTF-16 code units. */
  readonly body: string;
  /** Artifacts to send as media (MMS, WhatsApp media), at most {@link MAX_MEDIA}; the sender turns them into signed URLs. */
  readonly mediaArtifactIds?: readonly string[];
  readonly kind: SmsKind;
  /** SMS segments of the body as counted by `smsSegmentCount`; 1 for WhatsApp. */
  readonly segments: number;
};

/** Most media one Twilio message carries. */
export const MAX_MEDIA = 10;

/** Longest body Twilio accepts, in characters (UTF-16 code units). */
export const MAX_BODY_CHARS = 1600;

const KINDS: ReadonlySet<string> = new Set(['answer', 'approval-request', 'approval-update', 'notice']);

const ADDRESS = /^(?:whatsapp:)?\+[1-9][0-9]{1,14}$/;

/** Whether `address` is one Twilio delivers for: an E.164 number (`+447700900123`), or one with the `whatsapp:` prefix. */
export function isSmsAddress(address: string): boolean {
  return ADDRESS.test(address);
}

/** Whether `address` is a WhatsApp address through Twilio (`whatsapp:+E.164`, prefix in lower case as Twilio writes it). */
export function isWhatsAppAddress(address: string): boolean {
  return address.startsWith('whatsapp:');
}

/** The payload of one message to `to`, its segments counted from `body` (1 on WhatsApp); no media field when `media` is empty. */
export function smsPayload(to: string, kind: SmsKind, body: string, media: readonly string[] = []): SmsPayload {
  const segments = isWhatsAppAddress(to) ? 1 : smsSegmentCount(body);
  return { to, body, ...(media.length === 0 ? {} : { mediaArtifactIds: media }), kind, segments };
}

/** A file to send as media: its artifact id, and the name a message of media alone shows. */
export interface MediaFile {
  readonly id: string;
  readonly name: string;
}

/**
 * The payloads of one output: one a text (blank ones dropped), with media on the first message
 * (SMS: up to {@link MAX_MEDIA}, an MMS) or one a message (WhatsApp takes one). Media beyond the
 * texts go in messages of their own, named by their files.
 */
export function smsPayloads(to: string, kind: SmsKind, texts: readonly string[], files: readonly MediaFile[]): SmsPayload[] {
  const perMessage = isWhatsAppAddress(to) ? 1 : MAX_MEDIA;
  const groups: (readonly MediaFile[])[] = [];
  for (let at = 0; at < files.length; at += perMessage) groups.push(files.slice(at, at + perMessage));
  const bodies = texts.filter((text) => text.trim() !== '');
  return Array.from({ length: Math.max(bodies.length, groups.length) }, (_, index) => {
    const group = groups[index] ?? [];
    return smsPayload(to, kind, bodies[index] ?? group.map((file) => file.name).join(', '), group.map((file) => file.id));
  });
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The names of the fields of `payload` that do not have the shape of an {@link SmsPayload}. */
function badFields(payload: Readonly<Record<string, unknown>>): string[] {
  const { to, body, mediaArtifactIds: media, kind, segments } = payload;
  const checks: readonly (readonly [string, boolean])[] = [
    ['to', typeof to === 'string' && ADDRESS.test(to)],
    ['body', isText(body) && body.length <= MAX_BODY_CHARS],
    ['mediaArtifactIds', media === undefined || (Array.isArray(media) && media.length <= MAX_MEDIA && media.every(isText))],
    ['kind', typeof kind === 'string' && KINDS.has(kind)],
    ['segments', typeof segments === 'number' && Number.isInteger(segments) && segments >= 1],
  ];
  return checks.filter(([, ok]) => !ok).map(([name]) => name);
}

/**
 * `payload` (as read back from a queue) as an {@link SmsPayload}. Checks every field: `to` an
 * E.164 number with an optional `whatsapp:` prefix, `body` not blank and within Twilio's 1600
 * characters, at most 10 media ids, a known `kind`, `segments` a positive integer.
 *
 * @throws SwitchboardError `channel.invalid` naming the fields that are wrong.
 */
export function readSmsPayload(payload: Readonly<Record<string, unknown>>): SmsPayload {
  const fields = badFields(payload);
  if (fields.length > 0) {
    throw new SwitchboardError('channel.invalid', `Not an SMS payload: wrong ${fields.join(', ')}`, { details: { fields } });
  }
  return payload as unknown as SmsPayload;
}
