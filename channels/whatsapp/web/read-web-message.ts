/**
 * A WhatsApp Web message to the channel's {@link WhatsAppMessageEvent}, or the reason it starts
 * nothing: the account's own messages, status updates and broadcasts, kinds that are not messages
 * (notifications, reactions, revocations), and group messages unless the group policy takes them
 * (`mentions`: only those that mention the bot or quote it).
 */
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import type { WhatsAppMessageEvent } from '../whatsapp-event.ts';
import { keepWebMedia } from './keep-web-media.ts';
import type { WebMessage, WhatsAppWebClient } from './web-client.ts';

/** Which group messages start turns: all, those addressed to the bot, or none. */
export type WebGroupPolicy = 'mentions' | 'all' | 'off';

/** What reading a message needs besides the message. */
export interface ReadWebMessageContext {
  /** Resolves hidden-number ids (`…@lid`) of senders. */
  readonly client: Pick<WhatsAppWebClient, 'getContactLidAndPhone'>;
  /** Every id the linked account goes by (`<number>@c.us`, its `…@lid`): what a mention of the bot names. */
  readonly botIds: ReadonlySet<string>;
  readonly groups: WebGroupPolicy;
  readonly artifacts: Pick<ArtifactStore, 'put'>;
  /** Largest medium kept, in bytes. */
  readonly maxMediaBytes: number;
  /** The time of a message whose own timestamp names no date. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** What became of one message. */
export type ReadWebMessageResult = { readonly event: WhatsAppMessageEvent } | { readonly skipped: string };

/** Kinds that are a person's message; everything else (notifications, reactions, …) is skipped. */
const TAKEN_TYPES = new Set(['chat', 'image', 'video', 'audio', 'ptt', 'document', 'sticker', 'location', 'vcard', 'multi_vcard']);

const NUMBER_ID = /^([1-9][0-9]{1,14})(?::[0-9]+)?@(?:c\.us|s\.whatsapp\.net)$/;

/** The sender's number, E.164, from a `<digits>@c.us` id or through the session for a `…@lid` id. */
async function senderNumber(id: string, client: ReadWebMessageContext['client']): Promise<string | undefined> {
  const direct = NUMBER_ID.exec(id);
  if (direct?.[1] !== undefined) return `+${direct[1]}`;
  if (!id.endsWith('@lid')) return undefined;
  const [found] = await client.getContactLidAndPhone([id]).catch(() => []);
  const resolved = NUMBER_ID.exec(found?.pn ?? '');
  return resolved?.[1] === undefined ? undefined : `+${resolved[1]}`;
}

/** The first millisecond of the year 10000: later times have no four-digit ISO 8601 year. */
const YEAR_10000_MS = 253_402_300_800_000;

/** The message's own time (Unix seconds) as ISO 8601; `now` when it is missing, not a number, or no date of years 1970 to 9999. */
function sentAt(timestamp: number, now: () => Date): string {
  const ms = timestamp * 1000;
  return Number.isFinite(ms) && ms >= 0 && ms < YEAR_10000_MS ? new Date(ms).toISOString() : now().toISOString();
}

function profileNameOf(message: WebMessage): string | undefined {
  const name = (message.rawData as { notifyName?: unknown }).notifyName;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
}

function textOf(message: WebMessage): string {
  const { location } = message;
  if (message.type !== 'location' || location === undefined) return message.body;
  const place = [location.name, location.address].filter((part) => part !== undefined && part !== '').join(', ');
  return [`Location: ${String(location.latitude)}, ${String(location.longitude)}${place === '' ? '' : ` (${place})`}`, message.body].filter((line) => line !== '').join('\n');
}

async function groupOf(message: WebMessage): Promise<{ readonly id: string; readonly name?: string }> {
  const name = await message.getChat().then((chat) => chat.name, () => '');
  return name === '' ? { id: message.from } : { id: message.from, name };
}

function skipReason(message: WebMessage, groups: WebGroupPolicy): string | undefined {
  if (message.fromMe || message.id.fromMe) return 'own message';
  if (message.isStatus || message.from === 'status@broadcast' || message.broadcast) return 'status or broadcast';
  if (!TAKEN_TYPES.has(message.type)) return `not a message (${message.type})`;
  if (message.from.endsWith('@g.us') && groups === 'off') return 'group messages are off';
  return undefined;
}

/** Reads one message; `skipped` says why it starts nothing. */
export async function readWebMessage(message: WebMessage, context: ReadWebMessageContext): Promise<ReadWebMessageResult> {
  const skip = skipReason(message, context.groups);
  if (skip !== undefined) return { skipped: skip };
  const inGroup = message.from.endsWith('@g.us');
  const quoted = message.hasQuotedMsg ? await message.getQuotedMessage().catch(() => undefined) : undefined;
  if (inGroup && context.groups === 'mentions') {
    const mentioned = message.mentionedIds.some((id) => context.botIds.has(id));
    if (!mentioned && quoted?.fromMe !== true) return { skipped: 'group message not addressed to the bot' };
  }
  const from = await senderNumber(inGroup ? (message.author ?? '') : message.from, context.client);
  if (from === undefined) return { skipped: 'sender number unknown' };
  const group = inGroup ? await groupOf(message) : undefined;
  const media = await keepWebMedia(message, context.artifacts, context.maxMediaBytes);
  const profileName = profileNameOf(message);
  const event: WhatsAppMessageEvent = {
    type: 'whatsapp',
    via: 'web',
    messageId: message.id._serialized,
    from,
    ...(profileName === undefined ? {} : { profileName }),
    ...(group === undefined ? {} : { group }),
    text: textOf(message),
    ...(quoted === undefined ? {} : { quotedId: quoted.id._serialized }),
    attachments: media.attachments,
    notes: media.notes,
    receivedAt: sentAt(message.timestamp, context.clock ?? (() => new Date())),
  };
  return { event };
}
