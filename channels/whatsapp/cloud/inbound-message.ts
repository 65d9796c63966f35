/**
 * What one Cloud API message says, by its `type`: text to pass on (a caption, a button's title, a
 * location or a contact written out), a tap on an approval button, a medium to keep, or nothing to
 * answer (a reaction). Pure; the medium itself is fetched by `cloud-media.ts`.
 */
import { readApprovalButtonId, type ApprovalButton } from '../approval-buttons.ts';
import { recordOf, stringOf, type CloudMessage } from './webhook-payload.ts';

/** The kinds of media a person can send. */
export type CloudMediumKind = 'image' | 'document' | 'audio' | 'video' | 'sticker';

/** A medium of a message, still on Meta's side. */
export interface CloudMedium {
  readonly kind: CloudMediumKind;
  /** Meta's media id, for `GET /{media-id}`. */
  readonly id: string;
  /** As Meta gives it, e.g. `audio/ogg; codecs=opus`; `application/octet-stream` when not given. */
  readonly mimeType: string;
  /** A document's file name, when given. */
  readonly filename?: string;
  /** `audio.voice`: a voice note recorded in WhatsApp. */
  readonly voice: boolean;
}

/** What a message amounts to. */
export type InboundReading =
  | { readonly kind: 'ignore'; readonly reason: string }
  | { readonly kind: 'approval'; readonly button: ApprovalButton }
  | { readonly kind: 'message'; readonly text: string; readonly notes: readonly string[] };

const MEDIA_KINDS: readonly string[] = ['image', 'document', 'audio', 'video', 'sticker'] satisfies readonly CloudMediumKind[];

/** The medium of a media message, or `undefined`. */
export function mediumOf(message: CloudMessage): CloudMedium | undefined {
  if (!MEDIA_KINDS.includes(message.type)) return undefined;
  const medium = recordOf(message.fields[message.type]);
  const id = stringOf(medium?.['id']);
  if (id === undefined) return undefined;
  const filename = stringOf(medium?.['filename']);
  return {
    kind: message.type as CloudMediumKind,
    id,
    mimeType: stringOf(medium?.['mime_type']) ?? 'application/octet-stream',
    voice: medium?.['voice'] === true,
    ...(filename === undefined ? {} : { filename }),
  };
}

const message = (text: string, notes: readonly string[] = []): InboundReading => ({ kind: 'message', text, notes });

/** A button's id or payload: an approval when it names one, else its title as text. */
function buttonReading(id: string | undefined, title: string | undefined): InboundReading {
  const button = id === undefined ? undefined : readApprovalButtonId(id);
  if (button !== undefined) return { kind: 'approval', button };
  return message(title ?? id ?? '');
}

function interactiveReading(fields: Readonly<Record<string, unknown>>): InboundReading {
  const interactive = recordOf(fields['interactive']);
  const type = stringOf(interactive?.['type']);
  const reply = type === 'button_reply' || type === 'list_reply' ? recordOf(interactive?.[type]) : undefined;
  if (reply === undefined) return message('', [`(The person sent a WhatsApp interactive reply of type ${type ?? 'unknown'}, which this service cannot read.)`]);
  return buttonReading(stringOf(reply['id']), stringOf(reply['title']));
}

function locationText(fields: Readonly<Record<string, unknown>>): string {
  const location = recordOf(fields['location']);
  const place = [stringOf(location?.['name']), stringOf(location?.['address'])].filter((part) => part !== undefined).join(', ');
  const latitude = location?.['latitude'];
  const longitude = location?.['longitude'];
  const at = typeof latitude === 'number' && typeof longitude === 'number' ? `${latitude}, ${longitude}` : undefined;
  const url = stringOf(location?.['url']);
  return ['Shared a location:', place === '' ? undefined : place, at === undefined ? undefined : `(${at})`, url].filter((part) => part !== undefined).join(' ');
}

function contactText(value: unknown): string {
  const contact = recordOf(value);
  const name = stringOf(recordOf(contact?.['name'])?.['formatted_name']) ?? 'a contact';
  const phones = (Array.isArray(contact?.['phones']) ? (contact['phones'] as unknown[]) : []).flatMap((phone) => {
    const number = stringOf(recordOf(phone)?.['phone']);
    return number === undefined ? [] : [number];
  });
  return `Shared a contact: ${name}${phones.length === 0 ? '' : ` (${phones.join(', ')})`}`;
}

function contactsText(fields: Readonly<Record<string, unknown>>): string {
  const contacts = fields['contacts'];
  return (Array.isArray(contacts) ? (contacts as unknown[]) : []).map(contactText).join('\n');
}

function mediaText(cloud: CloudMessage): InboundReading {
  const caption = stringOf(recordOf(cloud.fields[cloud.type])?.['caption']);
  return message(caption ?? '');
}

/**
 * Reads one message.
 *
 * @example
 * readCloudMessage(message) // { kind: 'message', text: 'Does it come in blue?', notes: [] }
 */
export function readCloudMessage(cloud: CloudMessage): InboundReading {
  const { fields } = cloud;
  switch (cloud.type) {
    case 'text': return message(stringOf(recordOf(fields['text'])?.['body']) ?? '');
    case 'image': case 'document': case 'audio': case 'video': case 'sticker': return mediaText(cloud);
    case 'interactive': return interactiveReading(fields);
    case 'button': {
      const button = recordOf(fields['button']);
      return buttonReading(stringOf(button?.['payload']), stringOf(button?.['text']));
    }
    case 'location': return message(locationText(fields));
    case 'contacts': return message(contactsText(fields));
    case 'reaction': return { kind: 'ignore', reason: 'a reaction' };
    case 'system': return { kind: 'ignore', reason: 'a system notice' };
    case 'request_welcome': return { kind: 'ignore', reason: 'a welcome request' };
    default: {
      const said = cloud.errors.map((error) => error.details ?? error.title).find((detail) => detail !== undefined)?.replace(/[.\s]+$/, '');
      return message('', [`(The person sent a kind of WhatsApp message this service cannot read${said === undefined ? '' : `: ${said}`}.)`]);
    }
  }
}
