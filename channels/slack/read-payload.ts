/**
 * From an authenticated Slack payload (a signed HTTP body, or a Socket Mode envelope's `payload`:
 * the same JSON) to what the channel acts on: the URL verification challenge, a message
 * that starts or continues a conversation (with the files shared with it), a click on an approval
 * card, or the reason it starts nothing (the bot's own and other bots' messages, edits, joins and
 * deletions, a channel message that is neither a mention nor in a thread the bot is in).
 */
import type { SlackApprovalClick, SlackMessageEvent, SlackSharedFile } from './slack-event.ts';

/** What a request comes to. */
export type SlackIntent =
  | { readonly kind: 'challenge'; readonly challenge: string }
  | {
    readonly kind: 'message';
    readonly event: SlackMessageEvent;
    /** Whether the bot takes part in the thread the message was posted in (never asked for a DM). */
    readonly inThread: boolean;
    /** A direct message to the bot: every message of a DM is the bot's, so no thread is recorded. */
    readonly dm: boolean;
    readonly files: readonly SlackSharedFile[];
  }
  | { readonly kind: 'click'; readonly event: SlackApprovalClick }
  | { readonly kind: 'ignored'; readonly reason: string };

/** What reading needs. */
export interface ReadContext {
  /** The bot's own user id (from `auth.test`). */
  readonly botUserId: string;
  /** Whether the bot is in the thread `threadTs` of `channel`. */
  readonly botInThread: (teamId: string, channel: string, threadTs: string) => Promise<boolean>;
  readonly now: Date;
}

type Json = Readonly<Record<string, unknown>>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

/** Subtypes of a person's message; every other subtype (edits, joins, deletions, bots) starts nothing. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

function sharedFiles(event: Json): SlackSharedFile[] {
  const files = Array.isArray(event['files']) ? (event['files'] as unknown[]).map(obj) : [];
  return files.map((file) => {
    const [size, url] = [file['size'], str(file['url_private_download']) ?? str(file['url_private'])];
    return {
      name: str(file['name']) ?? str(file['title']) ?? 'unnamed',
      mimeType: str(file['mimetype']) ?? 'application/octet-stream',
      ...(typeof size === 'number' ? { sizeBytes: size } : {}),
      ...(url === undefined ? {} : { url }),
    };
  });
}

async function messageIntent(body: Json, context: ReadContext): Promise<SlackIntent> {
  const event = obj(body['event']);
  const type = str(event['type']);
  const subtype = str(event['subtype']);
  if (type !== 'message' && type !== 'app_mention') return { kind: 'ignored', reason: `event ${type ?? '?'}` };
  if (str(event['bot_id']) !== undefined || (subtype !== undefined && !PERSON_SUBTYPES.has(subtype))) return { kind: 'ignored', reason: `a bot or a ${subtype ?? 'bot'} message` };
  const [teamId, channel, user, ts] = [str(body['team_id']) ?? str(event['team']), str(event['channel']), str(event['user']), str(event['ts'])];
  if (teamId === undefined || channel === undefined || user === undefined || ts === undefined) return { kind: 'ignored', reason: 'incomplete event' };
  if (user === context.botUserId) return { kind: 'ignored', reason: 'our own message' };
  const mention = `<@${context.botUserId}>`;
  const rawText = str(event['text']) ?? '';
  const threadTs = str(event['thread_ts']);
  const dm = str(event['channel_type']) === 'im';
  // A mention in a channel also comes as a plain message event: the app_mention one is taken.
  if (type === 'message' && !dm && rawText.includes(mention)) return { kind: 'ignored', reason: 'a mention, taken from its app_mention event' };
  const inThread = !dm && threadTs !== undefined && (await context.botInThread(teamId, channel, threadTs));
  if (type === 'message' && !dm && !inThread) return { kind: 'ignored', reason: 'a channel message outside the bot\'s threads' };
  const eventId = str(body['event_id']) ?? `${channel}-${ts}`;
  const text = rawText.split(mention).join('').replace(/\s+/g, ' ').trim();
  return {
    kind: 'message',
    inThread,
    dm,
    files: sharedFiles(event),
    event: { type: 'slack-message', eventId, teamId, channel, user, ts, ...(threadTs === undefined ? {} : { threadTs }), text, notes: [], receivedAt: context.now.toISOString() },
  };
}

function clickIntent(payload: Json, now: Date): SlackIntent {
  const action = obj((Array.isArray(payload['actions']) ? (payload['actions'] as unknown[]) : [])[0]);
  const actionId = str(action['action_id']);
  if (actionId !== 'approval.approve' && actionId !== 'approval.deny') return { kind: 'ignored', reason: `action ${actionId ?? '?'}` };
  let value: Json;
  try {
    value = obj(JSON.parse(str(action['value']) ?? ''));
  } catch {
    return { kind: 'ignored', reason: 'an approval button without a readable value' };
  }
  const user = obj(payload['user']);
  const message = obj(payload['message']);
  const [teamId, userId, channel, messageTs, approvalId, actionTs] = [str(user['team_id']) ?? str(obj(payload['team'])['id']), str(user['id']), str(obj(payload['channel'])['id']), str(message['ts']), str(value['approvalId']), str(action['action_ts'])];
  if (teamId === undefined || userId === undefined || channel === undefined || messageTs === undefined || approvalId === undefined || actionTs === undefined) return { kind: 'ignored', reason: 'incomplete block action' };
  const threadTs = str(message['thread_ts']);
  const argsHash = str(value['argsHash']);
  return {
    kind: 'click',
    event: {
      type: 'slack-approval', actionTs, teamId, user: userId, channel, messageTs, approvalId,
      decision: actionId === 'approval.approve' ? 'granted' : 'denied',
      ...(threadTs === undefined ? {} : { threadTs }), ...(argsHash === undefined ? {} : { argsHash }),
      receivedAt: now.toISOString(),
    },
  };
}

/**
 * Reads one parsed payload: an Events API body (`url_verification`, `event_callback`) or an
 * interactivity payload (`block_actions`), as a Socket Mode envelope carries it.
 *
 * @returns `undefined` when it is neither (no `type`).
 */
export async function readSlackJson(payload: unknown, context: ReadContext): Promise<SlackIntent | undefined> {
  const parsed = obj(payload);
  const type = str(parsed['type']);
  if (type === 'url_verification') return { kind: 'challenge', challenge: str(parsed['challenge']) ?? '' };
  if (type === 'event_callback') return messageIntent(parsed, context);
  if (type === 'block_actions') return clickIntent(parsed, context.now);
  return type === undefined ? undefined : { kind: 'ignored', reason: `payload ${type}` };
}

/**
 * Reads a verified HTTP body: JSON for the Events API, `payload=<json>` (form-encoded) for interactivity.
 *
 * @returns `undefined` when the body is neither.
 */
export async function readSlackPayload(body: string, contentType: string, context: ReadContext): Promise<SlackIntent | undefined> {
  let parsed: unknown;
  try {
    parsed = contentType.includes('application/x-www-form-urlencoded') ? JSON.parse(new URLSearchParams(body).get('payload') ?? '') : JSON.parse(body);
  } catch {
    return undefined;
  }
  return readSlackJson(parsed, context);
}
