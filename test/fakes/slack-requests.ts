/**
 * What Slack sends *to* a service: signed Events API deliveries (JSON) and signed interactivity
 * requests (`payload=<JSON>`, form-encoded), built from the recorded payloads in
 * `test/fixtures/slack/`. Also the fixture reader the fake Slack Web API shares.
 *
 * Slack signs a request with the app's signing secret: `X-Slack-Signature: v0=<hex HMAC-SHA256 of
 * "v0:<X-Slack-Request-Timestamp>:<raw body>">`. A receiver must verify it over the raw bytes,
 * before parsing, and refuse stale timestamps.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type {
  PostSlackEventOptions,
  PostSlackInteractionOptions,
  SlackBlock,
  SlackBlockActionsPayload,
  SlackEventCallback,
  SlackFile,
  SlackHttpResponse,
  SlackMessageEvent,
  SlackSignedPostOptions,
  SlackUrlVerification,
} from './fake-slack-types.ts';

/** Folder of the recorded Slack payloads (fake identifiers, real shapes). */
const FIXTURES = new URL('../fixtures/slack/', import.meta.url);

/** The names of the recorded payloads. */
export type SlackFixtureName =
  | 'event-message-im'
  | 'event-app-mention'
  | 'event-thread-reply'
  | 'event-bot-message'
  | 'event-message-changed'
  | 'url-verification'
  | 'block-actions'
  | 'chat-postMessage-ok'
  | 'auth-test-ok'
  | 'ratelimited';

/** The fake identifiers the fixtures (and the builders' defaults) use. */
export const SLACK_FAKE_IDS = {
  teamId: 'T0FAKE01',
  appId: 'A0FAKE01',
  botUserId: 'U0BOT001',
  botId: 'B0BOT001',
  userId: 'U0USER001',
  dmChannel: 'D0DM00001',
  channel: 'C0CHAN001',
  verificationToken: 'fakeVerificationToken0000',
} as const;

/** What Slack's delivery agent calls itself. */
const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';

type Json = Record<string, unknown>;

/** A fresh copy of a recorded payload from `test/fixtures/slack/{name}.json`. */
export function readSlackFixture(name: SlackFixtureName): Json {
  const value = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as unknown;
  if (!isObject(value)) throw new Error(`test/fixtures/slack/${name}.json is not a JSON object`);
  return value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `field` of a recorded payload, which must be an object. */
function objectField(value: Json, field: string, fixture: string): Json {
  const inner = value[field];
  if (!isObject(inner)) throw new Error(`${fixture}.json: ${field} is not an object`);
  return inner;
}

// ---------------------------------------------------------------------------------------------
// Signing and posting

/**
 * Slack's request signature: `v0=` and the hex HMAC-SHA256, keyed with the signing secret, of
 * `v0:<timestampSeconds>:<rawBody>`.
 */
export function signSlackRequest(signingSecret: string, timestampSeconds: number, rawBody: string): string {
  const digest = createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${rawBody}`, 'utf8').digest('hex');
  return `v0=${digest}`;
}

async function postSigned(options: SlackSignedPostOptions, rawBody: string, contentType: string): Promise<SlackHttpResponse> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'user-agent': SLACK_USER_AGENT,
    accept: '*/*',
    'x-slack-request-timestamp': String(timestamp),
  };
  const signature = options.signature === undefined ? signSlackRequest(options.signingSecret, timestamp, rawBody) : options.signature;
  if (signature !== null) headers['x-slack-signature'] = signature;
  if (options.retryNum !== undefined) headers['x-slack-retry-num'] = String(options.retryNum);
  if (options.retryReason !== undefined) headers['x-slack-retry-reason'] = options.retryReason;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const response = await fetch(options.url, { method: 'POST', headers, body: rawBody, redirect: 'manual' });
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    answered[name] = value;
  });
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type'), headers: answered };
}

/**
 * POSTs an Events API delivery the way Slack does: `Content-Type: application/json`, the compact
 * JSON of `body` (a string is sent as it is), `X-Slack-Request-Timestamp`, `X-Slack-Signature`
 * over the exact bytes sent, and `X-Slack-Retry-Num` / `X-Slack-Retry-Reason` on redeliveries.
 */
export function postSlackEvent(options: PostSlackEventOptions): Promise<SlackHttpResponse> {
  const raw = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return postSigned(options, raw, 'application/json');
}

/**
 * POSTs an interactivity request (button click, …) the way Slack does:
 * `Content-Type: application/x-www-form-urlencoded`, body `payload=<URL-encoded JSON>`, signed
 * like events.
 */
export function postSlackInteraction(options: PostSlackInteractionOptions): Promise<SlackHttpResponse> {
  const raw = new URLSearchParams({ payload: JSON.stringify(options.payload) }).toString();
  return postSigned(options, raw, 'application/x-www-form-urlencoded');
}

// ---------------------------------------------------------------------------------------------
// Payload builders

let tsSequence = 0;

/**
 * A fresh message `ts` for a payload: the current epoch second and a 6-digit sequence, e.g.
 * `1761900000.000007`. Unique within the process.
 */
export function freshSlackTs(): string {
  tsSequence += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(tsSequence % 1_000_000).padStart(6, '0')}`;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomId(length: number, alphabet = ID_ALPHABET): string {
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length] ?? 'A').join('');
}

/**
 * The `blocks` Slack derives from a typed message: one `rich_text` block whose section holds text
 * runs and `<@U…>` mentions as `user` elements.
 */
export function richTextBlocks(text: string): SlackBlock[] {
  const elements: Json[] = [];
  const mention = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;
  let last = 0;
  for (const match of text.matchAll(mention)) {
    if (match.index > last) elements.push({ type: 'text', text: text.slice(last, match.index) });
    elements.push({ type: 'user', user_id: match[1] });
    last = match.index + match[0].length;
  }
  if (last < text.length) elements.push({ type: 'text', text: text.slice(last) });
  const blockId = randomId(5, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
  return [{ type: 'rich_text', block_id: blockId, elements: [{ type: 'rich_text_section', elements }] }];
}

/** The `event` of a recorded `event_callback`. */
function eventTemplate(name: SlackFixtureName): Json {
  return objectField(readSlackFixture(name), 'event', name);
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** The Events API URL check Slack sends when the request URL is saved. */
export function urlVerification(challenge: string): SlackUrlVerification {
  return { ...readSlackFixture('url-verification'), challenge } as unknown as SlackUrlVerification;
}

/** Options of {@link eventCallback}. */
export interface EventCallbackOptions {
  /** Default: a fresh `Ev…` id. Slack's retries of one delivery carry the same id. */
  readonly eventId?: string;
  readonly teamId?: string;
  readonly apiAppId?: string;
  /** Epoch seconds. Default: the event's `event_ts`, else now. */
  readonly eventTime?: number;
  /** The `user_id` of `authorizations[0]` (the installation's bot user). Default `U0BOT001`. */
  readonly botUserId?: string;
}

/** Wraps `event` in an Events API `event_callback` envelope. */
export function eventCallback<E extends { readonly event_ts?: string }>(event: E, options: EventCallbackOptions = {}): SlackEventCallback<E> {
  const template = readSlackFixture('event-message-im');
  const teamId = options.teamId ?? SLACK_FAKE_IDS.teamId;
  const eventTime = options.eventTime ?? (event.event_ts === undefined ? Math.floor(Date.now() / 1000) : Math.floor(Number(event.event_ts)));
  const authorizations = [
    {
      enterprise_id: null,
      team_id: teamId,
      user_id: options.botUserId ?? SLACK_FAKE_IDS.botUserId,
      is_bot: true,
      is_enterprise_install: false,
    },
  ];
  return {
    ...template,
    team_id: teamId,
    context_team_id: teamId,
    api_app_id: options.apiAppId ?? SLACK_FAKE_IDS.appId,
    event,
    event_id: options.eventId ?? `Ev${randomId(10)}`,
    event_time: eventTime,
    authorizations,
  } as unknown as SlackEventCallback<E>;
}

/** Options of {@link dmMessage}. */
export interface DmMessageOptions {
  readonly user: string;
  readonly text: string;
  /** Default `D0DM00001`. */
  readonly channel?: string;
  /** Default: {@link freshSlackTs}. */
  readonly ts?: string;
  /** Set for a reply in a DM thread. */
  readonly threadTs?: string;
  /** The thread starter's author, with `threadTs`. Default: `user`. */
  readonly parentUserId?: string;
  /** Shared files: the event becomes subtype `file_share`. */
  readonly files?: readonly SlackFile[];
  readonly team?: string;
}

/** A `message` event in a direct message with the bot (`channel_type: 'im'`). */
export function dmMessage(options: DmMessageOptions): SlackMessageEvent {
  const ts = options.ts ?? freshSlackTs();
  const files =
    options.files === undefined || options.files.length === 0
      ? {}
      : { subtype: 'file_share', files: options.files, upload: false, display_as_bot: false };
  return {
    ...eventTemplate('event-message-im'),
    type: 'message',
    ...files,
    user: options.user,
    ts,
    client_msg_id: randomUUID(),
    text: options.text,
    team: options.team ?? SLACK_FAKE_IDS.teamId,
    ...optional('thread_ts', options.threadTs),
    ...(options.threadTs === undefined ? {} : { parent_user_id: options.parentUserId ?? options.user }),
    blocks: richTextBlocks(options.text),
    channel: options.channel ?? SLACK_FAKE_IDS.dmChannel,
    event_ts: ts,
    channel_type: 'im',
  };
}

/** Options of {@link appMention}. */
export interface AppMentionOptions {
  readonly user: string;
  /** The message text. `<@botUserId> ` is put in front unless the text already mentions the bot. */
  readonly text: string;
  readonly channel: string;
  readonly ts?: string;
  readonly threadTs?: string;
  /** Default `U0BOT001`. */
  readonly botUserId?: string;
  readonly team?: string;
}

/**
 * An `app_mention` event (a channel message that mentions the bot). Slack also sends the same
 * message as a `message` event (`channel_type: 'channel'`) when the app subscribes to
 * `message.channels`: a service must not answer both.
 */
export function appMention(options: AppMentionOptions): SlackMessageEvent {
  const ts = options.ts ?? freshSlackTs();
  const mention = `<@${options.botUserId ?? SLACK_FAKE_IDS.botUserId}>`;
  const text = options.text.includes(mention) ? options.text : `${mention} ${options.text}`;
  return {
    ...eventTemplate('event-app-mention'),
    type: 'app_mention',
    user: options.user,
    ts,
    client_msg_id: randomUUID(),
    text,
    team: options.team ?? SLACK_FAKE_IDS.teamId,
    ...optional('thread_ts', options.threadTs),
    blocks: richTextBlocks(text),
    channel: options.channel,
    event_ts: ts,
  };
}

/** Options of {@link threadReply}. */
export interface ThreadReplyOptions {
  readonly user: string;
  readonly text: string;
  readonly channel: string;
  /** The thread starter's `ts`. */
  readonly threadTs: string;
  readonly ts?: string;
  /** The thread starter's author. Default: `user`. */
  readonly parentUserId?: string;
  /** Default `channel`. */
  readonly channelType?: 'channel' | 'group' | 'im' | 'mpim';
  readonly team?: string;
}

/** A `message` event replying in a thread (`thread_ts` set, `ts` different). */
export function threadReply(options: ThreadReplyOptions): SlackMessageEvent {
  const ts = options.ts ?? freshSlackTs();
  return {
    ...eventTemplate('event-thread-reply'),
    type: 'message',
    user: options.user,
    ts,
    client_msg_id: randomUUID(),
    text: options.text,
    team: options.team ?? SLACK_FAKE_IDS.teamId,
    thread_ts: options.threadTs,
    parent_user_id: options.parentUserId ?? options.user,
    blocks: richTextBlocks(options.text),
    channel: options.channel,
    event_ts: ts,
    channel_type: options.channelType ?? 'channel',
  };
}

/** Options of {@link botMessage}. */
export interface BotMessageOptions {
  /** `B…` */
  readonly botId: string;
  readonly text: string;
  readonly channel: string;
  readonly ts?: string;
  readonly threadTs?: string;
  /** Default `A0OTHER01`. */
  readonly appId?: string;
  /** The bot's user id (`bot_profile.user_id`, and `user` without a subtype). Default `U0OTHER01`. */
  readonly userId?: string;
  /** Default `deploy-bot`. */
  readonly username?: string;
  /**
   * `bot_message` (default): a legacy integration / webhook post. `null`: a post by an app's bot
   * user through `chat.postMessage`, which Slack delivers with `bot_id`, `app_id` and `user` but
   * no subtype, the shape of the bot's own messages echoed back.
   */
  readonly subtype?: 'bot_message' | null;
  readonly channelType?: 'channel' | 'group' | 'im' | 'mpim';
}

/** A `message` event posted by a bot. */
export function botMessage(options: BotMessageOptions): SlackMessageEvent {
  const ts = options.ts ?? freshSlackTs();
  const template = eventTemplate('event-bot-message');
  const appId = options.appId ?? 'A0OTHER01';
  const userId = options.userId ?? 'U0OTHER01';
  const username = options.username ?? 'deploy-bot';
  const profile = objectField(template, 'bot_profile', 'event-bot-message');
  const { subtype: _subtype, username: _username, ...withoutSubtype } = template;
  const base = options.subtype === null ? { ...withoutSubtype, user: userId } : { ...template, username };
  return {
    ...base,
    type: 'message',
    text: options.text,
    ts,
    ...optional('thread_ts', options.threadTs),
    bot_id: options.botId,
    app_id: appId,
    bot_profile: { ...profile, id: options.botId, app_id: appId, user_id: userId, name: username },
    blocks: richTextBlocks(options.text),
    channel: options.channel,
    event_ts: ts,
    channel_type: options.channelType ?? 'channel',
  };
}

/** Options of {@link messageChanged}. */
export interface MessageChangedOptions {
  readonly channel: string;
  /** The edited message's `ts`. */
  readonly ts: string;
  readonly user: string;
  /** The text after the edit. */
  readonly text: string;
  /** The text before the edit. */
  readonly previousText: string;
  /** When the edit happened. Default: {@link freshSlackTs}. */
  readonly editTs?: string;
  readonly threadTs?: string;
  /** Default `im`. */
  readonly channelType?: 'channel' | 'group' | 'im' | 'mpim';
  readonly team?: string;
}

/**
 * A `message` event with subtype `message_changed` (a user edited a message): the new message
 * under `message`, the old one under `previous_message`, no top-level `user` or `text`, and a
 * top-level `ts` of its own.
 */
export function messageChanged(options: MessageChangedOptions): SlackMessageEvent {
  const template = eventTemplate('event-message-changed');
  const message = objectField(template, 'message', 'event-message-changed');
  const previous = objectField(template, 'previous_message', 'event-message-changed');
  const editTs = options.editTs ?? freshSlackTs();
  const team = options.team ?? SLACK_FAKE_IDS.teamId;
  const clientMsgId = randomUUID();
  const thread = { ...optional('thread_ts', options.threadTs) };
  return {
    ...template,
    type: 'message',
    message: {
      ...message,
      user: options.user,
      edited: { user: options.user, ts: `${editTs.split('.')[0] ?? editTs}.000000` },
      client_msg_id: clientMsgId,
      text: options.text,
      team,
      blocks: richTextBlocks(options.text),
      ts: options.ts,
      ...thread,
      source_team: team,
      user_team: team,
    },
    previous_message: {
      ...previous,
      user: options.user,
      ts: options.ts,
      client_msg_id: clientMsgId,
      text: options.previousText,
      team,
      ...thread,
      blocks: richTextBlocks(options.previousText),
    },
    channel: options.channel,
    ts: editTs,
    event_ts: editTs,
    channel_type: options.channelType ?? 'im',
  };
}

/** Options of {@link blockActions}. */
export interface BlockActionsOptions {
  /** Who clicked. `username` defaults to `user-<id in lower case>`. */
  readonly user: { readonly id: string; readonly team_id: string; readonly username?: string };
  readonly actionId: string;
  readonly value: string;
  /** The conversation of the message with the button. */
  readonly channel: string;
  /** The `ts` of the message with the button. */
  readonly messageTs: string;
  /** Default: a fake `https://hooks.slack.com/actions/…` URL. */
  readonly responseUrl?: string;
  /** Default `decide`. */
  readonly blockId?: string;
  /** The message with the button, as Slack echoes it. Default: the recorded one, with `ts` set. */
  readonly message?: Readonly<Record<string, unknown>>;
  /** Default: `directmessage` for `D…` channels, else `fake-<id in lower case>`. */
  readonly channelName?: string;
  /** `container.is_ephemeral`: the button was on an ephemeral message. Default `false`. */
  readonly isEphemeral?: boolean;
}

/** An interactivity `block_actions` payload: one button clicked on a message. */
export function blockActions(options: BlockActionsOptions): SlackBlockActionsPayload {
  const template = readSlackFixture('block-actions');
  const [recordedAction] = (template['actions'] as Json[] | undefined) ?? [];
  const teamId = options.user.team_id;
  const username = options.user.username ?? `user-${options.user.id.toLowerCase()}`;
  const channelName = options.channelName ?? (options.channel.startsWith('D') ? 'directmessage' : `fake-${options.channel.toLowerCase()}`);
  const message = options.message ?? { ...objectField(template, 'message', 'block-actions'), ts: options.messageTs };
  return {
    ...template,
    user: { id: options.user.id, username, name: username, team_id: teamId },
    container: { type: 'message', message_ts: options.messageTs, channel_id: options.channel, is_ephemeral: options.isEphemeral ?? false },
    trigger_id: `${Date.now()}.${randomId(13, '0123456789')}.${randomBytes(16).toString('hex')}`,
    team: { ...objectField(template, 'team', 'block-actions'), id: teamId },
    channel: { id: options.channel, name: channelName },
    message,
    response_url: options.responseUrl ?? `https://hooks.slack.com/actions/${teamId}/${randomId(13, '0123456789')}/${randomId(24)}`,
    actions: [
      {
        ...recordedAction,
        action_id: options.actionId,
        block_id: options.blockId ?? 'decide',
        value: options.value,
        action_ts: freshSlackTs(),
      },
    ],
  } as unknown as SlackBlockActionsPayload;
}
