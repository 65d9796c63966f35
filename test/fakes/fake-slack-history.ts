/**
 * The reading side of the fake Slack Web API (`fake-slack.ts`): `conversations.history`,
 * `conversations.replies` and `conversations.open`, over the messages the fake's `chat.postMessage`
 * stored, in Slack's wire format: `oldest` / `latest` (exclusive unless `inclusive`), `limit`,
 * opaque `cursor`s with `has_more` and `response_metadata.next_cursor`, and message `metadata`
 * only with `include_all_metadata`. History lists a conversation's top-level messages (and thread
 * replies sent with `reply_broadcast`), newest first; replies list a thread's parent, then its
 * replies oldest first.
 */
import type { FakeSlackMessage } from './fake-slack-types.ts';

type Json = Record<string, unknown>;

/** What a method answers (the shape of `fake-slack.ts`'s answers). */
type Answer = { readonly ok: true; readonly body: Json } | { readonly ok: false; readonly error: string };

/** What the readers need from the fake. */
export interface SlackHistoryContext {
  /** Every stored message, oldest first. */
  readonly messages: readonly FakeSlackMessage[];
  /** A stored message as Slack lists it, without its metadata. */
  readonly render: (message: FakeSlackMessage) => Json;
  /** The error for a conversation the bot cannot read, or `undefined`. */
  readonly channelError: (channel: string | undefined) => string | undefined;
  /** The app's DM with a user (`U…` → `D…`). */
  readonly dmOf: (user: string) => string;
  /** Whether a thread whose parent the fake did not post is a person's (see `FakeSlackOptions.threadParents`). */
  readonly peopleStartThreads: boolean;
}

/** Slack's default page size, and its most. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 999;

function field(args: Json, key: string): string | undefined {
  const value = args[key];
  if (typeof value === 'string' && value !== '') return value;
  return typeof value === 'number' ? String(value) : undefined;
}

function flag(args: Json, key: string): boolean {
  const value = args[key];
  return value === true || value === 'true' || value === '1' || value === 1;
}

const cursorOf = (offset: number): string => Buffer.from(`offset:${String(offset)}`).toString('base64');

function offsetOf(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match === null ? undefined : Number(match[1]);
}

/** Whether `ts` lies in the window the arguments ask for. */
function inWindow(ts: string, args: Json): boolean {
  const inclusive = flag(args, 'inclusive');
  const value = Number(ts);
  const oldest = Number(field(args, 'oldest') ?? '0');
  const latest = field(args, 'latest');
  if (inclusive ? value < oldest : value <= oldest) return false;
  return latest === undefined || (inclusive ? value <= Number(latest) : value < Number(latest));
}

/** One page of `listed`, as Slack answers it. */
function page(context: SlackHistoryContext, listed: readonly FakeSlackMessage[], args: Json): Answer {
  const offset = offsetOf(field(args, 'cursor'));
  if (offset === undefined) return { ok: false, error: 'invalid_cursor' };
  const limit = Math.min(Math.max(Number(field(args, 'limit') ?? DEFAULT_LIMIT) || DEFAULT_LIMIT, 1), MAX_LIMIT);
  const withMetadata = flag(args, 'include_all_metadata');
  const messages = listed.slice(offset, offset + limit).map((message) => ({
    ...context.render(message),
    ...(withMetadata && message.metadata !== undefined ? { metadata: message.metadata } : {}),
  }));
  const more = listed.length > offset + limit;
  return { ok: true, body: { messages, has_more: more, response_metadata: { next_cursor: more ? cursorOf(offset + limit) : '' } } };
}

/** `conversations.history`: the conversation's top-level messages, newest first. */
export function conversationsHistory(context: SlackHistoryContext, args: Json): Answer {
  const channel = field(args, 'channel');
  const refused = context.channelError(channel);
  if (refused !== undefined) return { ok: false, error: refused };
  const listed = context.messages
    .filter((message) => message.channel === channel && (message.threadTs === undefined || message.replyBroadcast) && inWindow(message.ts, args))
    .toReversed();
  const answer = page(context, listed, args);
  return answer.ok ? { ok: true, body: { ...answer.body, pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 } } : answer;
}

/** `conversations.replies`: the thread `ts`, its parent first, then the replies oldest first. */
export function conversationsReplies(context: SlackHistoryContext, args: Json): Answer {
  const channel = field(args, 'channel');
  const ts = field(args, 'ts');
  const refused = context.channelError(channel);
  if (refused !== undefined) return { ok: false, error: refused };
  const inChannel = context.messages.filter((message) => message.channel === channel);
  const parent = inChannel.find((message) => message.ts === ts);
  const replies = inChannel.filter((message) => message.threadTs === ts && message.ts !== ts);
  const personStarted = parent === undefined && ts !== undefined && context.peopleStartThreads && /^\d+\.\d{6}$/.test(ts);
  if (parent === undefined && replies.length === 0 && !personStarted) return { ok: false, error: 'thread_not_found' };
  const listed = [...(parent === undefined ? [] : [parent]), ...replies].filter((message) => message === parent || inWindow(message.ts, args));
  const answer = page(context, listed, args);
  if (!personStarted || !answer.ok || field(args, 'cursor') !== undefined) return answer;
  // The person's message the thread hangs from, as Slack lists a parent: first, whatever the window.
  const messages = answer.body['messages'] as readonly Json[];
  return { ok: true, body: { ...answer.body, messages: [{ type: 'message', user: 'U0PERSON00', text: '', ts, thread_ts: ts, reply_count: replies.length }, ...messages] } };
}

/** `conversations.open` of one user: the app's DM with them. */
export function conversationsOpen(context: SlackHistoryContext, args: Json): Answer {
  const channel = field(args, 'channel');
  if (channel !== undefined) return { ok: true, body: { no_op: true, already_open: true, channel: { id: channel } } };
  const users = (field(args, 'users') ?? '').split(',').filter((user) => user !== '');
  const [user] = users;
  // One user only: the fake has no group DMs.
  if (user === undefined || users.length > 1 || !/^[UW][A-Z0-9]{2,}$/.test(user)) return { ok: false, error: 'user_not_found' };
  return { ok: true, body: { no_op: true, already_open: true, channel: { id: context.dmOf(user) } } };
}
