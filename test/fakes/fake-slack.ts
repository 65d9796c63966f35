/**
 * A local stand-in for Slack's Web API (`https://slack.com/api/`) that the real `@slack/web-api`
 * `WebClient` can talk to: `auth.test`, `chat.postMessage` / `update` / `postEphemeral`, streamed
 * messages (`chat.startStream` / `appendStream` / `stopStream`), `assistant.threads.setStatus`,
 * `conversations.info`, `users.info`, `conversations.history` / `replies` / `open` (with message
 * metadata; `fake-slack-history.ts`), bearer-token authentication, Slack's `{ ok: false, error }`
 * answers, 429 rate limits with `Retry-After`, answers held back after the call took effect
 * (`holdNext`), private file downloads, and Socket Mode
 * (`apps.connections.open` with the app token, then `fake-slack-socket.ts`). Answers are the
 * recorded payloads of `test/fixtures/slack/` with values filled in.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  FakeSlack,
  FakeSlackCall,
  FakeSlackConversation,
  FakeSlackDownload,
  FakeSlackEphemeral,
  FakeSlackFailure,
  FakeSlackFileOptions,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackStatus,
  FakeSlackStream,
  FakeSlackUpdate,
  FakeSlackUser,
  SlackBlock,
  SlackChunk,
  SlackFile,
} from './fake-slack-types.ts';
import { conversationsHistory, conversationsOpen, conversationsReplies, type SlackHistoryContext } from './fake-slack-history.ts';
import { attachFakeSocketMode, type FakeSocketMode } from './fake-slack-socket.ts';
import { readSlackFixture, richTextBlocks, SLACK_FAKE_IDS } from './slack-requests.ts';
import { readFakeRequest, startFakeServer, type FakeRequest } from '../support/fake-http.ts';

type Json = Record<string, unknown>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `ts` values start here: `1700000000.000100`, `1700000000.000200` … */
const TS_BASE_SECONDS = 1_700_000_000;
const TS_STEP_MICROS = 100;

const DEFAULT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'channels:read',
  'chat:write',
  'files:read',
  'groups:history',
  'im:history',
  'im:read',
  'users:read',
];

/** Arguments Slack reads as JSON when they arrive as form fields. */
const JSON_ARGS = new Set(['blocks', 'attachments', 'chunks', 'metadata', 'loading_messages', 'unfurls', 'prompts']);

interface StoredFile {
  readonly file: SlackFile;
  readonly bytes: Buffer;
}

interface ScriptedFailure {
  readonly method: string;
  readonly failure: FakeSlackFailure;
  /** Which calls it answers, by their arguments. */
  readonly match: (args: Json) => boolean;
}

/** Everything one fake knows. */
interface FakeState {
  origin: string;
  readonly botToken: string;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly scopes: readonly string[];
  readonly users: ReadonlyMap<string, FakeSlackUser>;
  readonly conversations: ReadonlyMap<string, FakeSlackConversation>;
  readonly fileAuthFailure: 'login-page' | 'unauthorized';
  readonly calls: FakeSlackCall[];
  readonly messages: Mutable<FakeSlackMessage>[];
  /** {@link FakeState.messages} by `ts` (each unique): a thread's parent is found without a scan. */
  readonly messagesByTs: Map<string, Mutable<FakeSlackMessage>>;
  readonly updates: FakeSlackUpdate[];
  readonly ephemerals: FakeSlackEphemeral[];
  readonly statuses: FakeSlackStatus[];
  readonly streams: (Mutable<FakeSlackStream> & { pieces: string[]; chunks: SlackChunk[] })[];
  readonly files: Map<string, StoredFile>;
  readonly downloads: FakeSlackDownload[];
  readonly failures: ScriptedFailure[];
  /** Calls whose answers are still to be held: see `FakeSlack.holdNext`. */
  readonly holds: { readonly method: string; readonly match: (args: Json) => boolean }[];
  /** Answers held back, in the order the calls came. */
  readonly held: (() => void)[];
  readonly tsFrom: 'sequence' | 'clock';
  readonly threadParents: 'people' | 'posted';
  tsCounter: number;
  /** The last `ts` given in `clock` mode, in microseconds. */
  lastTsMicros: number;
  socketMode?: FakeSocketMode;
}

/** A JSON answer. */
interface JsonReply {
  readonly kind: 'json';
  readonly status: number;
  readonly body: Json;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How the fake answers on the wire. */
type Reply =
  | JsonReply
  | {
      readonly kind: 'bytes';
      readonly status: number;
      readonly body: Buffer;
      readonly contentType: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'disconnect' };

/** What a Web API method answers: the fields next to `ok: true`, or an error. */
type Answer = { readonly ok: true; readonly body: Json } | { readonly ok: false; readonly error: string };

type MethodHandler = (state: FakeState, args: Json, at: number) => Answer;

/**
 * Starts a fake Slack Web API on 127.0.0.1 and a free port. Point the real client at it:
 *
 * ```ts
 * const fake = await startFakeSlack({ botToken: 'xoxb-test' });
 * const client = new WebClient('xoxb-test', { slackApiUrl: fake.url });
 * await client.chat.postMessage({ channel: 'C0CHAN001', text: 'hi' });
 * expect(fake.messages('C0CHAN001')).toHaveLength(1);
 * await fake.close();
 * ```
 *
 * Every method takes `POST /api/<method>` (or `GET` with a query) with a form-encoded (as the
 * WebClient sends) or JSON body. Like Slack, every answer is HTTP 200 with `{ ok, … }` except rate
 * limits (429) and scripted 5xx failures. No token answers `not_authed`, a wrong one `invalid_auth`,
 * an unknown method `unknown_method`.
 */
export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const state = initialState(options);
  const { server, listening } = await startFakeServer(
    (req, res) => handle(state, req, res),
    (res, message) => { send(res, { kind: 'json', status: 500, body: { ok: false, error: `fake-slack crashed: ${message}` } }); },
  );
  state.origin = listening.origin;
  const socketMode = attachFakeSocketMode(server, { appToken: options.appToken, appId: state.appId, origin: () => state.origin });
  state.socketMode = socketMode;
  return {
    url: `${state.origin}/api/`,
    origin: state.origin,
    botToken: state.botToken,
    teamId: state.teamId,
    botUserId: state.botUserId,
    botId: state.botId,
    appId: state.appId,
    messages: (channel) => state.messages.filter((message) => channel === undefined || message.channel === channel).map((message) => ({ ...message })),
    updates: () => [...state.updates],
    ephemerals: () => [...state.ephemerals],
    statuses: (threadTs) => state.statuses.filter((status) => threadTs === undefined || status.threadTs === threadTs),
    streams: () => state.streams.map((stream) => ({ ...stream, pieces: [...stream.pieces], chunks: [...stream.chunks] })),
    calls: (method) => state.calls.filter((call) => method === undefined || call.method === method),
    downloads: () => [...state.downloads],
    failNext(method, count, failure, match = () => true) {
      for (let index = 0; index < count; index += 1) state.failures.push({ method, failure, match });
    },
    holdNext(method, count, match = () => true) {
      for (let index = 0; index < count; index += 1) state.holds.push({ method, match });
    },
    heldCount: () => state.held.length,
    releaseHeld() {
      for (const release of state.held.splice(0)) release();
    },
    addFile: (bytes, fileOptions) => addFile(state, bytes, fileOptions),
    pushEnvelope: (envelope) => socketMode.pushEnvelope(envelope),
    acks: () => socketMode.acks(),
    sockets: () => socketMode.sockets(),
    refreshSockets: () => { socketMode.refreshSockets(); },
    reset: () => {
      resetState(state);
      socketMode.reset();
    },
    close: async () => {
      for (const release of state.held.splice(0)) release();
      await socketMode.close();
      await listening.close();
    },
  };
}

function initialState(options: FakeSlackOptions): FakeState {
  return {
    origin: '',
    botToken: options.botToken,
    teamId: options.teamId ?? SLACK_FAKE_IDS.teamId,
    botUserId: options.botUserId ?? SLACK_FAKE_IDS.botUserId,
    botId: options.botId ?? SLACK_FAKE_IDS.botId,
    appId: options.appId ?? SLACK_FAKE_IDS.appId,
    scopes: options.scopes ?? DEFAULT_SCOPES,
    users: new Map((options.users ?? []).map((user) => [user.id, user])),
    conversations: new Map((options.conversations ?? []).map((conversation) => [conversation.id, conversation])),
    fileAuthFailure: options.fileAuthFailure ?? 'login-page',
    calls: [],
    messages: [],
    messagesByTs: new Map(),
    updates: [],
    ephemerals: [],
    statuses: [],
    streams: [],
    files: new Map(),
    downloads: [],
    failures: [],
    holds: [],
    held: [],
    tsFrom: options.tsFrom ?? 'sequence',
    threadParents: options.threadParents ?? 'people',
    tsCounter: 0,
    lastTsMicros: 0,
  };
}

function resetState(state: FakeState): void {
  for (const list of [state.calls, state.messages, state.updates, state.ephemerals, state.statuses, state.streams, state.downloads, state.failures]) {
    list.length = 0;
  }
  state.files.clear();
  state.messagesByTs.clear();
  state.holds.length = 0;
}

/** The next message `ts`: 100 µs after the previous one (`sequence`), or now (`clock`, always rising). */
function nextTs(state: FakeState): string {
  if (state.tsFrom === 'clock') {
    state.lastTsMicros = Math.max(Date.now() * 1000, state.lastTsMicros + 1);
    return `${String(Math.floor(state.lastTsMicros / 1_000_000))}.${String(state.lastTsMicros % 1_000_000).padStart(6, '0')}`;
  }
  state.tsCounter += 1;
  const micros = state.tsCounter * TS_STEP_MICROS;
  return `${TS_BASE_SECONDS + Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// Request handling

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const request = await readFakeRequest(req);
  const reply = route(state, request);
  const call = state.calls.at(-1);
  const hold = call === undefined || !request.pathname.startsWith('/api/') ? -1 : state.holds.findIndex((held) => held.method === call.method && held.match(call.args));
  if (hold < 0) {
    send(res, reply);
    return;
  }
  // The call took effect; its answer waits (a client killed meanwhile never learns of it).
  state.holds.splice(hold, 1);
  state.held.push(() => { send(res, reply); });
}

function route(state: FakeState, request: FakeRequest): Reply {
  if (request.pathname.startsWith('/api/')) return apiCall(state, request, decodeURIComponent(request.pathname.slice('/api/'.length)));
  const file = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\/(download\/)?[^/]+$/.exec(request.pathname);
  if (file !== null && request.method === 'GET') return downloadFile(state, request, file[2] ?? '', file[3] !== undefined);
  if (request.pathname === '/signin' && request.method === 'GET') {
    return htmlReply(200, '<!DOCTYPE html><html><head><title>Slack</title></head><body><h1>Sign in to your workspace</h1></body></html>');
  }
  return htmlReply(404, '<!DOCTYPE html><html><body>Not found</body></html>');
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.kind === 'disconnect') {
    res.socket?.destroy();
    return;
  }
  const common = { 'x-slack-req-id': randomBytes(16).toString('hex'), ...reply.headers };
  if (reply.kind === 'bytes') {
    res.writeHead(reply.status, { ...common, 'content-type': reply.contentType, 'content-length': String(reply.body.length) });
    res.end(reply.body);
    return;
  }
  res.writeHead(reply.status, { ...common, 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(reply.body));
}

function htmlReply(status: number, html: string, headers: Readonly<Record<string, string>> = {}): Reply {
  return { kind: 'bytes', status, body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', headers };
}

// ---------------------------------------------------------------------------------------------
// Web API calls

const METHODS: Readonly<Record<string, MethodHandler>> = {
  'auth.test': authTest,
  'chat.postMessage': postMessage,
  'chat.update': updateMessage,
  'chat.postEphemeral': postEphemeral,
  'chat.startStream': startStream,
  'chat.appendStream': appendStream,
  'chat.stopStream': stopStream,
  'assistant.threads.setStatus': setStatus,
  'conversations.info': conversationsInfo,
  'conversations.history': (state, args) => conversationsHistory(historyContext(state), args),
  'conversations.replies': (state, args) => conversationsReplies(historyContext(state), args),
  'conversations.open': (state, args) => conversationsOpen(historyContext(state), args),
  'users.info': usersInfo,
};

/** The body as a flat record: form fields as strings, a JSON body as it is. */
function readArgs(request: FakeRequest): Json | undefined {
  const args: Json = Object.fromEntries(request.query);
  if (request.raw === '') return args;
  const contentType = (request.headers['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith('application/json')) {
    try {
      const body = JSON.parse(request.raw) as unknown;
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...args, ...(body as Json) } : undefined;
    } catch {
      return undefined;
    }
  }
  if (contentType.startsWith('application/x-www-form-urlencoded') || contentType === '') {
    return { ...args, ...Object.fromEntries(new URLSearchParams(request.raw)) };
  }
  return undefined;
}

/** Parses JSON-valued form fields in place; answers the error Slack gives for a malformed one. */
function parseJsonArgs(args: Json): string | undefined {
  for (const key of JSON_ARGS) {
    const value = args[key];
    if (typeof value !== 'string') continue;
    try {
      args[key] = JSON.parse(value) as unknown;
    } catch {
      return key === 'blocks' ? 'invalid_blocks_format' : 'invalid_arguments';
    }
  }
  return undefined;
}

function bearerToken(request: FakeRequest, args: Json): string | undefined {
  const header = /^Bearer\s+(\S+)$/i.exec(request.headers['authorization'] ?? '');
  if (header?.[1] !== undefined) return header[1];
  const token = args['token'];
  return typeof token === 'string' && token !== '' ? token : undefined;
}

function takeFailure(state: FakeState, method: string, args: Json): FakeSlackFailure | undefined {
  const index = state.failures.findIndex((failure) => (failure.method === method || failure.method === '*') && failure.match(args));
  if (index < 0) return undefined;
  return state.failures.splice(index, 1)[0]?.failure;
}

function failureReply(failure: FakeSlackFailure): Reply {
  if ('disconnect' in failure) return { kind: 'disconnect' };
  if ('error' in failure) {
    return { kind: 'json', status: 200, body: { ok: false, error: failure.error, ...(failure.needed === undefined ? {} : { needed: failure.needed }) } };
  }
  if (failure.status === 429) {
    const headers: Record<string, string> = failure.retryAfterSeconds === null ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
    return { kind: 'json', status: 429, body: readSlackFixture('ratelimited'), headers };
  }
  return htmlReply(failure.status, failure.body ?? `<!DOCTYPE html><html><body>${failure.status} Server Error</body></html>`);
}

function errorReply(error: string, extra: Json = {}): JsonReply {
  return { kind: 'json', status: 200, body: { ok: false, error, ...extra } };
}

function apiCall(state: FakeState, request: FakeRequest, method: string): Reply {
  const at = Date.now();
  const args = readArgs(request);
  const token = args === undefined ? bearerToken(request, {}) : bearerToken(request, args);
  const recorded: Json = { ...args };
  delete recorded['token'];
  const reply = answerCall(state, request, method, recorded, token, args === undefined, at);
  state.calls.push({
    method,
    args: recorded,
    rawBody: request.raw,
    contentType: request.headers['content-type'],
    token,
    status: reply.kind === 'disconnect' ? 0 : reply.status,
    error: reply.kind === 'json' && reply.body['ok'] === false && typeof reply.body['error'] === 'string' ? reply.body['error'] : undefined,
    at,
  });
  return reply;
}

function answerCall(state: FakeState, request: FakeRequest, method: string, args: Json, token: string | undefined, unreadable: boolean, at: number): Reply {
  if (method === 'apps.connections.open' && state.socketMode !== undefined) {
    const opened = state.socketMode.open(token);
    return opened.ok ? { kind: 'json', status: 200, body: { ok: true, url: opened.url } } : errorReply(opened.error);
  }
  const handler = METHODS[method];
  if (handler === undefined) return errorReply('unknown_method', { req_method: method });
  if (unreadable) return errorReply(request.headers['content-type']?.startsWith('application/json') === true ? 'invalid_json' : 'invalid_form_data');
  if (token === undefined) return errorReply('not_authed');
  if (token !== state.botToken) return errorReply('invalid_auth');
  const failure = takeFailure(state, method, args);
  if (failure !== undefined) return failureReply(failure);
  const scopes = { 'x-oauth-scopes': state.scopes.join(',') };
  const malformed = parseJsonArgs(args);
  if (malformed !== undefined) return { ...errorReply(malformed), headers: scopes };
  const answer = handler(state, args, at);
  if (!answer.ok) return { ...errorReply(answer.error), headers: scopes };
  return { kind: 'json', status: 200, body: { ok: true, ...answer.body }, headers: scopes };
}

// ---------------------------------------------------------------------------------------------
// Arguments

function text(args: Json, key: string): string | undefined {
  const value = args[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function nonEmpty(args: Json, key: string): string | undefined {
  const value = text(args, key);
  return value === undefined || value === '' ? undefined : value;
}

function flag(args: Json, key: string): boolean {
  const value = args[key];
  return value === true || value === 'true' || value === '1' || value === 1;
}

function isBlock(value: unknown): value is SlackBlock {
  return typeof value === 'object' && value !== null && typeof (value as Json)['type'] === 'string';
}

function isChunk(value: unknown): value is SlackChunk {
  return isBlock(value) && (value['text'] === undefined || typeof value['text'] === 'string');
}

/** `blocks` / `chunks` as sent: `undefined` when absent, `'invalid'` when not an array of such objects. */
function typedList<T>(args: Json, key: string, guard: (value: unknown) => value is T): readonly T[] | undefined | 'invalid' {
  const value = args[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(guard)) return 'invalid';
  return value;
}

function list(args: Json, key: string): readonly unknown[] | undefined {
  const value = args[key];
  return Array.isArray(value) ? value : undefined;
}

/** The channel a message goes to: a user id means the app's DM with that user, as in Slack. */
function resolveChannel(state: FakeState, channel: string): string {
  if (!/^[UW]/.test(channel)) return channel;
  for (const conversation of state.conversations.values()) {
    if (conversation.user === channel && (conversation.isIm ?? conversation.id.startsWith('D'))) return conversation.id;
  }
  return `D${channel.slice(1)}`;
}

/** `channel_not_found` for a malformed id, `not_in_channel` where the bot is configured out. */
function channelError(state: FakeState, channel: string | undefined): string | undefined {
  if (channel === undefined || !/^[CDG][A-Z0-9]{2,}$/.test(channel)) return 'channel_not_found';
  return state.conversations.get(channel)?.isMember === false ? 'not_in_channel' : undefined;
}

function chunkText(chunks: readonly SlackChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'markdown_text' && typeof chunk.text === 'string' ? chunk.text : '')).join('');
}

// ---------------------------------------------------------------------------------------------
// Methods

/** What `fake-slack-history.ts` reads. */
function historyContext(state: FakeState): SlackHistoryContext {
  return {
    messages: state.messages,
    render: (message) => botMessageObject(state, { ts: message.ts, text: message.text ?? message.markdownText, blocks: message.blocks, threadTs: message.threadTs }),
    channelError: (channel) => channelError(state, channel),
    dmOf: (user) => resolveChannel(state, user),
    peopleStartThreads: state.threadParents === 'people',
  };
}

function authTest(state: FakeState): Answer {
  const { ok: _ok, ...body } = readSlackFixture('auth-test-ok');
  return { ok: true, body: { ...body, team_id: state.teamId, user_id: state.botUserId, bot_id: state.botId } };
}

/** A message by the bot, as Slack echoes it in `chat.postMessage` / `chat.update` answers. */
function botMessageObject(
  state: FakeState,
  message: { readonly ts: string; readonly text: string | undefined; readonly blocks: readonly SlackBlock[] | undefined; readonly threadTs: string | undefined },
): Json {
  const { message: template } = readSlackFixture('chat-postMessage-ok') as { message: Json };
  const { blocks: _recorded, bot_profile: profile, ...rest } = template;
  const blocks = message.blocks ?? (message.text === undefined || message.text === '' ? undefined : richTextBlocks(message.text));
  const parent = message.threadTs === undefined ? undefined : state.messagesByTs.get(message.threadTs);
  return {
    ...rest,
    user: state.botUserId,
    ts: message.ts,
    bot_id: state.botId,
    app_id: state.appId,
    text: message.text ?? '',
    team: state.teamId,
    bot_profile: { ...(profile as Json), id: state.botId, app_id: state.appId, user_id: state.botUserId, team_id: state.teamId },
    ...(blocks === undefined ? {} : { blocks }),
    ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
    ...(parent === undefined ? {} : { parent_user_id: state.botUserId }),
  };
}

function postMessage(state: FakeState, args: Json, at: number): Answer {
  const requested = nonEmpty(args, 'channel');
  const channel = requested === undefined ? undefined : resolveChannel(state, requested);
  const refused = channelError(state, channel);
  if (refused !== undefined || channel === undefined) return { ok: false, error: refused ?? 'channel_not_found' };
  const blocks = typedList(args, 'blocks', isBlock);
  if (blocks === 'invalid') return { ok: false, error: 'invalid_blocks' };
  const messageText = text(args, 'text');
  const markdownText = nonEmpty(args, 'markdown_text');
  const attachments = list(args, 'attachments');
  if ((messageText ?? '') === '' && markdownText === undefined && (blocks ?? []).length === 0 && (attachments ?? []).length === 0) {
    return { ok: false, error: 'no_text' };
  }
  const ts = nextTs(state);
  const threadTs = nonEmpty(args, 'thread_ts');
  const posted: Mutable<FakeSlackMessage> = {
    channel,
    ts,
    threadTs,
    text: messageText,
    markdownText,
    blocks,
    attachments,
    metadata: args['metadata'],
    replyBroadcast: flag(args, 'reply_broadcast'),
    updateCount: 0,
    args,
    at,
  };
  state.messages.push(posted);
  state.messagesByTs.set(ts, posted);
  if (threadTs !== undefined) clearStatusOnPost(state, channel, threadTs, at);
  const { ok: _ok, ...template } = readSlackFixture('chat-postMessage-ok');
  return { ok: true, body: { ...template, channel, ts, message: botMessageObject(state, { ts, text: messageText ?? markdownText, blocks, threadTs }) } };
}

function updateMessage(state: FakeState, args: Json, at: number): Answer {
  const requested = nonEmpty(args, 'channel');
  const channel = requested === undefined ? undefined : resolveChannel(state, requested);
  const ts = nonEmpty(args, 'ts');
  const refused = channelError(state, channel);
  if (refused !== undefined) return { ok: false, error: refused };
  const found = ts === undefined ? undefined : state.messagesByTs.get(ts);
  const message = found?.channel === channel ? found : undefined;
  if (message === undefined || ts === undefined || channel === undefined) return { ok: false, error: 'message_not_found' };
  const blocks = typedList(args, 'blocks', isBlock);
  if (blocks === 'invalid') return { ok: false, error: 'invalid_blocks' };
  const newText = text(args, 'text');
  const attachments = list(args, 'attachments');
  if (newText === undefined && blocks === undefined && attachments === undefined && nonEmpty(args, 'markdown_text') === undefined) {
    return { ok: false, error: 'no_text' };
  }
  // As Slack: fields left out keep their previous value; an empty `blocks` array removes the blocks.
  if (newText !== undefined) message.text = newText;
  if (blocks !== undefined) message.blocks = blocks.length === 0 ? undefined : blocks;
  if (attachments !== undefined) message.attachments = attachments;
  message.updateCount += 1;
  state.updates.push({ channel, ts, text: newText, blocks, args, at });
  const echoed = botMessageObject(state, { ts, text: message.text, blocks: message.blocks, threadTs: message.threadTs });
  return { ok: true, body: { channel, ts, text: message.text ?? '', message: echoed } };
}

function postEphemeral(state: FakeState, args: Json, at: number): Answer {
  const channel = nonEmpty(args, 'channel');
  const refused = channelError(state, channel);
  if (refused !== undefined || channel === undefined) return { ok: false, error: refused ?? 'channel_not_found' };
  const user = nonEmpty(args, 'user');
  if (user === undefined || !/^[UW]/.test(user)) return { ok: false, error: 'user_not_in_channel' };
  const blocks = typedList(args, 'blocks', isBlock);
  if (blocks === 'invalid') return { ok: false, error: 'invalid_blocks' };
  const messageText = text(args, 'text');
  if ((messageText ?? '') === '' && (blocks ?? []).length === 0 && (list(args, 'attachments') ?? []).length === 0) {
    return { ok: false, error: 'no_text' };
  }
  const messageTs = nextTs(state);
  state.ephemerals.push({ channel, user, messageTs, threadTs: nonEmpty(args, 'thread_ts'), text: messageText, blocks, args, at });
  return { ok: true, body: { message_ts: messageTs } };
}

/** The text and chunks one stream call adds, or `undefined` for malformed `chunks`. */
function streamPiece(args: Json): { readonly text: string; readonly chunks: readonly SlackChunk[] } | undefined {
  const chunks = typedList(args, 'chunks', isChunk);
  if (chunks === 'invalid') return undefined;
  return { text: (text(args, 'markdown_text') ?? '') + chunkText(chunks ?? []), chunks: chunks ?? [] };
}

/** The channel (under `channelKey`) and `thread_ts` a call names, or the error Slack gives. */
function threadTarget(state: FakeState, args: Json, channelKey: string): { readonly channel: string; readonly threadTs: string } | { readonly error: string } {
  const channel = nonEmpty(args, channelKey);
  const refused = channelError(state, channel);
  if (refused !== undefined || channel === undefined) return { error: refused ?? 'channel_not_found' };
  const threadTs = nonEmpty(args, 'thread_ts');
  return threadTs === undefined ? { error: 'invalid_arguments' } : { channel, threadTs };
}

function startStream(state: FakeState, args: Json, at: number): Answer {
  const target = threadTarget(state, args, 'channel');
  if ('error' in target) return { ok: false, error: target.error };
  const { channel, threadTs } = target;
  const recipientUserId = nonEmpty(args, 'recipient_user_id');
  const recipientTeamId = nonEmpty(args, 'recipient_team_id');
  // Outside a DM, Slack needs to know whom the stream is for.
  if (!channel.startsWith('D') && recipientTeamId === undefined) return { ok: false, error: 'missing_recipient_team_id' };
  if (!channel.startsWith('D') && recipientUserId === undefined) return { ok: false, error: 'missing_recipient_user_id' };
  const piece = streamPiece(args);
  if (piece === undefined) return { ok: false, error: 'invalid_chunks' };
  const ts = nextTs(state);
  state.streams.push({
    channel,
    ts,
    threadTs,
    text: piece.text,
    pieces: [piece.text],
    chunks: [...piece.chunks],
    blocks: undefined,
    recipientUserId,
    recipientTeamId,
    state: 'streaming',
    appendCount: 0,
    startedAt: at,
    stoppedAt: undefined,
  });
  return { ok: true, body: { channel, ts } };
}

type StoredStream = FakeState['streams'][number];

/** The open stream `args` name, or the error Slack gives. */
function findStream(state: FakeState, args: Json): StoredStream | string {
  const channel = nonEmpty(args, 'channel');
  const refused = channelError(state, channel);
  if (refused !== undefined) return refused;
  const ts = nonEmpty(args, 'ts');
  const stream = state.streams.find((candidate) => candidate.channel === channel && candidate.ts === ts);
  if (stream === undefined) return 'message_not_found';
  if (stream.state !== 'streaming') return 'message_not_in_streaming_state';
  return stream;
}

function addPiece(stream: StoredStream, piece: { readonly text: string; readonly chunks: readonly SlackChunk[] }): void {
  stream.text += piece.text;
  stream.pieces.push(piece.text);
  stream.chunks.push(...piece.chunks);
}

function appendStream(state: FakeState, args: Json): Answer {
  const stream = findStream(state, args);
  if (typeof stream === 'string') return { ok: false, error: stream };
  const piece = streamPiece(args);
  if (piece === undefined) return { ok: false, error: 'invalid_chunks' };
  addPiece(stream, piece);
  stream.appendCount += 1;
  return { ok: true, body: { channel: stream.channel, ts: stream.ts } };
}

function stopStream(state: FakeState, args: Json, at: number): Answer {
  const stream = findStream(state, args);
  if (typeof stream === 'string') return { ok: false, error: stream };
  const piece = streamPiece(args);
  if (piece === undefined) return { ok: false, error: 'invalid_chunks' };
  const blocks = typedList(args, 'blocks', isBlock);
  if (blocks === 'invalid') return { ok: false, error: 'invalid_blocks' };
  addPiece(stream, piece);
  stream.blocks = blocks;
  stream.state = 'completed';
  stream.stoppedAt = at;
  const message = {
    ...botMessageObject(state, { ts: stream.ts, text: stream.text, blocks, threadTs: stream.threadTs }),
    streaming_state: 'completed',
  };
  return { ok: true, body: { channel: stream.channel, ts: stream.ts, message } };
}

/** Slack clears an assistant thread's status when the app posts in the thread; recorded with `byPost`. */
function clearStatusOnPost(state: FakeState, channel: string, threadTs: string, at: number): void {
  const last = state.statuses.findLast((status) => status.channelId === channel && status.threadTs === threadTs);
  if (last !== undefined && last.status !== '') state.statuses.push({ channelId: channel, threadTs, status: '', loadingMessages: undefined, at, byPost: true });
}

function setStatus(state: FakeState, args: Json, at: number): Answer {
  const target = threadTarget(state, args, 'channel_id');
  if ('error' in target) return { ok: false, error: target.error };
  const loading = list(args, 'loading_messages');
  state.statuses.push({
    channelId: target.channel,
    threadTs: target.threadTs,
    status: text(args, 'status') ?? '',
    loadingMessages: loading?.map((entry) => String(entry)),
    at,
  });
  return { ok: true, body: {} };
}

function conversationsInfo(state: FakeState, args: Json): Answer {
  const id = nonEmpty(args, 'channel');
  if (id === undefined || !/^[CDG][A-Z0-9]{2,}$/.test(id)) return { ok: false, error: 'channel_not_found' };
  const known = state.conversations.get(id);
  const isIm = known?.isIm ?? id.startsWith('D');
  const created = TS_BASE_SECONDS - 86_400 * 30;
  if (isIm) {
    const channel = {
      id,
      created,
      is_archived: false,
      is_im: true,
      is_org_shared: false,
      context_team_id: state.teamId,
      updated: created * 1000,
      user: known?.user ?? SLACK_FAKE_IDS.userId,
      is_user_deleted: false,
      priority: 0,
    };
    return { ok: true, body: { channel } };
  }
  const name = known?.name ?? `fake-${id.toLowerCase()}`;
  const isPrivate = known?.isPrivate ?? id.startsWith('G');
  const channel = {
    id,
    name,
    is_channel: !isPrivate,
    is_group: isPrivate,
    is_im: false,
    is_mpim: false,
    is_private: isPrivate,
    created,
    is_archived: false,
    is_general: false,
    unlinked: 0,
    name_normalized: name,
    is_shared: false,
    is_org_shared: false,
    is_pending_ext_shared: false,
    pending_shared: [],
    context_team_id: state.teamId,
    updated: created * 1000,
    parent_conversation: null,
    creator: SLACK_FAKE_IDS.userId,
    is_ext_shared: false,
    shared_team_ids: [state.teamId],
    pending_connected_team_ids: [],
    is_member: known?.isMember ?? true,
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
    previous_names: [],
  };
  return { ok: true, body: { channel } };
}

/** `tz_label` and `tz_offset` (seconds east of UTC, now) of an IANA zone. */
function zoneDetails(tz: string): { readonly label: string; readonly offset: number } {
  const now = new Date();
  const part = (style: 'long' | 'longOffset'): string =>
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: style }).formatToParts(now).find((entry) => entry.type === 'timeZoneName')?.value ?? '';
  const offset = /GMT([+-])(\d{2}):(\d{2})/.exec(part('longOffset'));
  const seconds = offset === null ? 0 : (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 3600 + Number(offset[3]) * 60);
  return { label: part('long'), offset: seconds };
}

function usersInfo(state: FakeState, args: Json): Answer {
  const id = nonEmpty(args, 'user');
  if (id === undefined || !/^[UW][A-Z0-9]{2,}$/.test(id)) return { ok: false, error: 'user_not_found' };
  const isOwnBot = id === state.botUserId;
  const known = state.users.get(id);
  const name = known?.name ?? (isOwnBot ? 'switchboard' : `user-${id.toLowerCase()}`);
  const realName = known?.realName ?? (isOwnBot ? 'switchboard' : `Test User ${id}`);
  const tz = known?.tz ?? 'Europe/Berlin';
  const zone = zoneDetails(tz);
  const profile = {
    title: '',
    phone: '',
    skype: '',
    real_name: realName,
    real_name_normalized: realName,
    display_name: name,
    display_name_normalized: name,
    status_text: '',
    status_emoji: '',
    avatar_hash: 'g0fake000000',
    ...(known?.email === undefined ? {} : { email: known.email }),
    ...(isOwnBot ? { bot_id: state.botId, api_app_id: state.appId, always_active: true } : {}),
    image_24: 'https://secure.gravatar.com/avatar/0.jpg?s=24',
    image_48: 'https://secure.gravatar.com/avatar/0.jpg?s=48',
    image_72: 'https://secure.gravatar.com/avatar/0.jpg?s=72',
    team: state.teamId,
  };
  const user = {
    id,
    team_id: state.teamId,
    name,
    deleted: known?.deleted ?? false,
    color: '9f69e7',
    real_name: realName,
    tz,
    tz_label: zone.label,
    tz_offset: zone.offset,
    profile,
    is_admin: false,
    is_owner: false,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: known?.isBot ?? isOwnBot,
    is_app_user: false,
    updated: TS_BASE_SECONDS,
    is_email_confirmed: true,
    who_can_share_contact_card: 'EVERYONE',
  };
  return { ok: true, body: { user } };
}

// ---------------------------------------------------------------------------------------------
// Files

const FILE_TYPES: Readonly<Record<string, readonly [filetype: string, prettyType: string]>> = {
  'image/png': ['png', 'PNG'],
  'image/jpeg': ['jpg', 'JPEG'],
  'image/gif': ['gif', 'GIF'],
  'image/webp': ['webp', 'WebP'],
  'application/pdf': ['pdf', 'PDF'],
  'text/plain': ['text', 'Plain Text'],
  'text/csv': ['csv', 'CSV'],
  'audio/webm': ['webm', 'WebM'],
  'audio/mp4': ['m4a', 'MPEG 4 Audio'],
};

function addFile(state: FakeState, bytes: Uint8Array | string, options: FakeSlackFileOptions): SlackFile {
  const id = `F${randomBytes(8).toString('hex').toUpperCase().slice(0, 10)}`;
  const body = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
  const created = Math.floor(Date.now() / 1000);
  const name = encodeURIComponent(options.name);
  const base = `${state.origin}/files-pri/${state.teamId}-${id}`;
  const user = options.user ?? SLACK_FAKE_IDS.userId;
  const extension = /\.([A-Za-z0-9]+)$/.exec(options.name)?.[1]?.toLowerCase();
  const [filetype, prettyType] = FILE_TYPES[options.mimetype] ?? [extension ?? 'binary', extension?.toUpperCase() ?? 'Binary'];
  const file: SlackFile = {
    id,
    created,
    timestamp: created,
    name: options.name,
    title: options.title ?? options.name,
    mimetype: options.mimetype,
    filetype,
    pretty_type: prettyType,
    user,
    user_team: state.teamId,
    editable: false,
    size: body.length,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: false,
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `${base}/${name}`,
    url_private_download: `${base}/download/${name}`,
    permalink: `https://switchboard-fake.slack.com/files/${user}/${id}/${name}`,
    permalink_public: `https://slack-files.com/${state.teamId}-${id}-${randomBytes(5).toString('hex')}`,
    is_starred: false,
    has_rich_preview: false,
    file_access: 'visible',
  };
  state.files.set(id, { file, bytes: body });
  return file;
}

function downloadFile(state: FakeState, request: FakeRequest, fileId: string, asAttachment: boolean): Reply {
  const stored = state.files.get(fileId);
  const authorized = request.headers['authorization'] === `Bearer ${state.botToken}`;
  const reply = fileReply(state, request, stored, authorized, asAttachment);
  if (stored !== undefined) state.downloads.push({ fileId, authorized, status: reply.kind === 'disconnect' ? 0 : reply.status, at: Date.now() });
  return reply;
}

function fileReply(state: FakeState, request: FakeRequest, stored: StoredFile | undefined, authorized: boolean, asAttachment: boolean): Reply {
  if (stored === undefined) return htmlReply(404, '<!DOCTYPE html><html><body>File not found</body></html>');
  if (!authorized) {
    if (state.fileAuthFailure === 'unauthorized') return htmlReply(401, '<!DOCTYPE html><html><body>Unauthorized</body></html>');
    return htmlReply(302, '', { location: `${state.origin}/signin?redir=${encodeURIComponent(request.pathname)}` });
  }
  const disposition = `${asAttachment ? 'attachment' : 'inline'}; filename="${stored.file.name.replace(/"/g, '')}"`;
  return { kind: 'bytes', status: 200, body: stored.bytes, contentType: stored.file.mimetype, headers: { 'content-disposition': disposition } };
}
