import { createServer } from 'node:http';
import { verifySlackRequest } from '@slack/bolt';
import {
  ErrorCode,
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
  WebClientEvent,
  type WebClientOptions,
} from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from './fake-slack-types.ts';
import { startFakeSlack } from './fake-slack.ts';
import { rejection } from '../support/rejection.ts';
import {
  appMention,
  blockActions,
  botMessage,
  dmMessage,
  eventCallback,
  messageChanged,
  postSlackEvent,
  postSlackInteraction,
  readSlackFixture,
  signSlackRequest,
  SLACK_FAKE_IDS,
  threadReply,
  urlVerification,
} from './slack-requests.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

const TOKEN = 'xoxb-1000000000001-2000000000002-fAkEbOtToKeN0000000000000';
const SIGNING_SECRET = 'fake-signing-secret-00112233445566778899aabb';
const CHANNEL = SLACK_FAKE_IDS.channel;
const DM = SLACK_FAKE_IDS.dmChannel;
const USER = SLACK_FAKE_IDS.userId;
const TS_FORMAT = /^\d{10}\.\d{6}$/;


/** A real WebClient talking to `target` with the client's default retry settings (quiet logs). */
function defaultClientFor(target: FakeSlack, options: WebClientOptions = {}): WebClient {
  return new WebClient(target.botToken, { slackApiUrl: target.url, logLevel: LogLevel.ERROR, ...options });
}

/** A real WebClient talking to `target`; no retries unless asked, quiet logs. */
function clientFor(target: FakeSlack, options: WebClientOptions = {}): WebClient {
  return defaultClientFor(target, { retryConfig: { retries: 0 }, ...options });
}

const sectionBlocks = [
  { type: 'section', block_id: 'ask', text: { type: 'mrkdwn', text: 'Book *LH 401*?' } },
  {
    type: 'actions',
    block_id: 'decide',
    elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' }, value: 'approval-0001' }],
  },
];

let fake: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  fake = await startFakeSlack({
    botToken: TOKEN,
    users: [{ id: USER, name: 'dana.reyes', realName: 'Dana Reyes', email: 'dana@example.test', tz: 'America/New_York' }],
    conversations: [{ id: 'C0LOCKED1', name: 'locked', isMember: false }],
  });
  client = clientFor(fake);
});

afterEach(() => {
  fake.reset();
});

afterAll(async () => {
  await fake.close();
});

describe('fake Slack Web API, through the real WebClient', () => {
  it('serves auth.test with the bot identity, and the scopes header the client copies', async () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
    const result = await client.auth.test();
    expect(result).toMatchObject({
      ok: true,
      team_id: 'T0FAKE01',
      user_id: 'U0BOT001',
      bot_id: 'B0BOT001',
      is_enterprise_install: false,
      url: 'https://switchboard-fake.slack.com/',
    });
    expect(result.response_metadata?.scopes).toContain('chat:write');
    const [call] = fake.calls('auth.test');
    expect(call).toMatchObject({ token: TOKEN, status: 200, error: undefined, contentType: 'application/x-www-form-urlencoded' });
  });

  it('answers a wrong token with invalid_auth and no token with not_authed, both HTTP 200', async () => {
    const wrong = await rejection(new WebClient('xoxb-wrong', { slackApiUrl: fake.url, retryConfig: { retries: 0 } }).auth.test());
    expect(wrong).toBeInstanceOf(WebAPIPlatformError);
    expect(wrong).toMatchObject({ code: ErrorCode.PlatformError, data: { ok: false, error: 'invalid_auth' } });
    const none = await rejection(new WebClient(undefined, { slackApiUrl: fake.url, retryConfig: { retries: 0 } }).auth.test());
    expect(none).toMatchObject({ code: 'slack_webapi_platform_error', data: { error: 'not_authed' } });
    const raw = await fetch(`${fake.url}chat.postMessage`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '' });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual({ ok: false, error: 'invalid_auth' });
    expect(fake.calls().map((call) => call.error)).toEqual(['invalid_auth', 'not_authed', 'invalid_auth']);
  });

  it('posts a threaded reply with blocks: blocks arrive form-encoded as JSON and are kept parsed', async () => {
    const parent = await client.chat.postMessage({ channel: CHANNEL, text: 'Looking into it.' });
    expect(parent.ts).toMatch(TS_FORMAT);
    const reply = await client.chat.postMessage({ channel: CHANNEL, thread_ts: parent.ts ?? '', text: 'Book LH 401?', blocks: sectionBlocks });
    expect(reply).toMatchObject({ ok: true, channel: CHANNEL, message: { thread_ts: parent.ts, bot_id: 'B0BOT001', user: 'U0BOT001', blocks: sectionBlocks } });
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));
    // The answer's message carries the rich_text block Slack derives from plain text.
    expect(parent.message?.blocks?.[0]?.type).toBe('rich_text');

    const [first, second] = fake.messages(CHANNEL);
    expect(first).toMatchObject({ ts: parent.ts, threadTs: undefined, text: 'Looking into it.', blocks: undefined });
    expect(second).toMatchObject({ ts: reply.ts, threadTs: parent.ts, text: 'Book LH 401?', blocks: sectionBlocks, updateCount: 0 });
    expect(Array.isArray(second?.blocks)).toBe(true);
    expect(fake.messages(DM)).toEqual([]);
    const raw = fake.calls('chat.postMessage')[1]?.rawBody ?? '';
    expect(new URLSearchParams(raw).get('blocks')).toBe(JSON.stringify(sectionBlocks));
  });

  it('also takes a JSON body with a bearer token, as Slack’s write methods do', async () => {
    const response = await fetch(`${fake.url}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: CHANNEL, text: 'via JSON', blocks: sectionBlocks, unfurl_links: false }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: CHANNEL });
    expect(fake.messages()).toMatchObject([{ text: 'via JSON', blocks: sectionBlocks, args: { unfurl_links: false } }]);
  });

  it('posts to a user id as Slack does: into the app DM with that user', async () => {
    const result = await client.chat.postMessage({ channel: USER, text: 'Reminder: your flight leaves at 9.' });
    expect(result.channel).toBe('D0USER001');
    expect(fake.messages('D0USER001')).toHaveLength(1);
  });

  it('refuses what Slack refuses: no text, bad channel, channel without the bot, malformed blocks', async () => {
    const errorOf = async (promise: Promise<unknown>): Promise<unknown> => ((await rejection(promise)) as WebAPIPlatformError).data.error;
    expect(await errorOf(client.chat.postMessage({ channel: CHANNEL, text: '' }))).toBe('no_text');
    expect(await errorOf(client.chat.postMessage({ channel: 'nope', text: 'x' }))).toBe('channel_not_found');
    expect(await errorOf(client.chat.postMessage({ channel: 'C0LOCKED1', text: 'x' }))).toBe('not_in_channel');
    expect(await errorOf(client.apiCall('chat.postMessage', { channel: CHANNEL, text: 'x', blocks: '[{"type":' }))).toBe('invalid_blocks_format');
    expect(await errorOf(client.apiCall('chat.nope', {}))).toBe('unknown_method');
    expect(fake.messages()).toEqual([]);
  });

  it('updates a posted message; text or blocks left out keep their value; unknown ts is message_not_found', async () => {
    const posted = await client.chat.postMessage({ channel: DM, text: 'Book LH 401?', blocks: sectionBlocks });
    const ts = posted.ts ?? '';
    const done = [{ type: 'section', text: { type: 'mrkdwn', text: 'Booked.' } }];
    const updated = await client.chat.update({ channel: DM, ts, text: 'Booked.', blocks: done });
    expect(updated).toMatchObject({ ok: true, channel: DM, ts, text: 'Booked.', message: { text: 'Booked.', blocks: done } });
    await client.chat.update({ channel: DM, ts, text: 'Booked (seat 14C).' });
    expect(fake.messages(DM)).toMatchObject([{ ts, text: 'Booked (seat 14C).', blocks: done, updateCount: 2 }]);
    expect(fake.updates().map((update) => update.text)).toEqual(['Booked.', 'Booked (seat 14C).']);
    expect(fake.updates()[1]?.blocks).toBeUndefined();

    const missing = await rejection(client.chat.update({ channel: DM, ts: '1600000000.000100', text: 'x' }));
    expect(missing).toMatchObject({ data: { error: 'message_not_found' } });
  });

  it('records ephemeral messages apart from messages', async () => {
    const result = await client.chat.postEphemeral({ channel: CHANNEL, user: USER, text: 'Only you can see this', blocks: sectionBlocks });
    expect(result.message_ts).toMatch(TS_FORMAT);
    expect(fake.ephemerals()).toMatchObject([{ channel: CHANNEL, user: USER, messageTs: result.message_ts, text: 'Only you can see this', blocks: sectionBlocks }]);
    expect(fake.messages()).toEqual([]);
  });

  it('records assistant thread statuses per thread', async () => {
    await client.assistant.threads.setStatus({ channel_id: DM, thread_ts: '1700000100.000200', status: 'is thinking…', loading_messages: ['Checking flights…'] });
    await client.assistant.threads.setStatus({ channel_id: DM, thread_ts: '1700000999.000100', status: 'is typing…' });
    await client.assistant.threads.setStatus({ channel_id: DM, thread_ts: '1700000100.000200', status: '' });
    expect(fake.statuses('1700000100.000200')).toMatchObject([
      { channelId: DM, status: 'is thinking…', loadingMessages: ['Checking flights…'] },
      { channelId: DM, status: '', loadingMessages: undefined },
    ]);
    expect(fake.statuses()).toHaveLength(3);
  });

  it('streams through the client’s ChatStreamer: it buffers, then sends markdown_text chunks', async () => {
    const streamer = client.chatStream({ channel: DM, thread_ts: '1700000100.000200', buffer_size: 10 });
    expect(await streamer.append({ markdown_text: 'Hello ' })).toBeNull(); // buffered, nothing sent
    expect(fake.calls()).toEqual([]);
    await streamer.append({ markdown_text: 'world, LH 401 ' }); // over the buffer size: chat.startStream
    expect(streamer.ts).toMatch(TS_FORMAT);
    await streamer.append({ markdown_text: 'is booked' }); // buffered
    await streamer.append({ markdown_text: ' for you.' }); // chat.appendStream
    const stopped = await streamer.stop({ markdown_text: ' ✈️' }); // chat.stopStream with the rest
    expect(stopped).toMatchObject({ ok: true, channel: DM, ts: streamer.ts, message: { text: 'Hello world, LH 401 is booked for you. ✈️' } });
    expect(fake.calls().map((call) => call.method)).toEqual(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);
    expect(fake.calls('chat.startStream')[0]?.args['chunks']).toEqual([{ type: 'markdown_text', text: 'Hello world, LH 401 ' }]);
    expect(fake.streams()).toMatchObject([
      {
        channel: DM,
        ts: streamer.ts,
        threadTs: '1700000100.000200',
        text: 'Hello world, LH 401 is booked for you. ✈️',
        pieces: ['Hello world, LH 401 ', 'is booked for you.', ' ✈️'],
        state: 'completed',
        appendCount: 1,
      },
    ]);
  });

  it('streams with raw start / append / stop calls and refuses appends after the stop', async () => {
    const thread = '1700000200.000300';
    const missing = await rejection(client.chat.startStream({ channel: CHANNEL, thread_ts: thread, markdown_text: 'x' }));
    expect(missing).toMatchObject({ data: { error: 'missing_recipient_team_id' } });
    const started = await client.chat.startStream({
      channel: CHANNEL,
      thread_ts: thread,
      markdown_text: 'Checking',
      recipient_team_id: 'T0FAKE01',
      recipient_user_id: USER,
    });
    const ts = started.ts ?? '';
    await client.chat.appendStream({ channel: CHANNEL, ts, markdown_text: ' order A-1042' });
    expect(fake.streams()[0]).toMatchObject({ text: 'Checking order A-1042', state: 'streaming' });
    await client.chat.stopStream({ channel: CHANNEL, ts, markdown_text: ': shipped.', blocks: sectionBlocks });
    expect(fake.streams()[0]).toMatchObject({ text: 'Checking order A-1042: shipped.', state: 'completed', blocks: sectionBlocks, recipientUserId: USER });
    const late = await rejection(client.chat.appendStream({ channel: CHANNEL, ts, markdown_text: 'more' }));
    expect(late).toMatchObject({ data: { error: 'message_not_in_streaming_state' } });
  });

  it('answers conversations.info and users.info minimally', async () => {
    const im = await client.conversations.info({ channel: DM });
    expect(im.channel).toMatchObject({ id: DM, is_im: true, user: USER });
    const channel = await client.conversations.info({ channel: CHANNEL });
    expect(channel.channel).toMatchObject({ id: CHANNEL, is_channel: true, is_private: false, is_member: true, name: 'fake-c0chan001' });
    const user = await client.users.info({ user: USER });
    expect(user.user).toMatchObject({ id: USER, name: 'dana.reyes', real_name: 'Dana Reyes', tz: 'America/New_York', is_bot: false, profile: { email: 'dana@example.test' } });
    expect([-14_400, -18_000]).toContain(user.user?.tz_offset);
    const bot = await client.users.info({ user: 'U0BOT001' });
    expect(bot.user).toMatchObject({ is_bot: true, profile: { bot_id: 'B0BOT001' } });
    expect(await rejection(client.users.info({ user: 'X1' }))).toMatchObject({ data: { error: 'user_not_found' } });
  });

  it('serves private files only with the bot token; without it, a redirect to an HTML sign-in page', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const file = fake.addFile(png, { name: 'boarding pass.png', mimetype: 'image/png' });
    expect(file).toMatchObject({ name: 'boarding pass.png', mimetype: 'image/png', filetype: 'png', size: png.length, mode: 'hosted' });
    expect(file.id).toMatch(/^F[0-9A-F]{10}$/);
    expect(file.url_private_download).toBe(`${fake.origin}/files-pri/T0FAKE01-${file.id}/download/boarding%20pass.png`);

    const authorized = await fetch(file.url_private_download, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authorized.status).toBe(200);
    expect(authorized.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await authorized.arrayBuffer())).toEqual(png);

    const manual = await fetch(file.url_private, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toMatch(/\/signin\?redir=/);
    const followed = await fetch(file.url_private);
    expect(followed.status).toBe(200); // the trap: a 200 that is not the file
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(fake.downloads().map((download) => [download.authorized, download.status])).toEqual([
      [true, 200],
      [false, 302],
      [false, 302],
    ]);

    const strict = await startFakeSlack({ botToken: TOKEN, fileAuthFailure: 'unauthorized' });
    try {
      const other = strict.addFile('hello', { name: 'note.txt', mimetype: 'text/plain' });
      expect((await fetch(other.url_private_download, { headers: { authorization: 'Bearer xoxb-other' } })).status).toBe(401);
    } finally {
      await strict.close();
    }
  });

  it('forgets everything on reset, but ts keeps increasing', async () => {
    const before = await client.chat.postMessage({ channel: CHANNEL, text: 'one' });
    fake.failNext('auth.test', 1, { error: 'fatal_error' });
    fake.reset();
    expect([fake.messages(), fake.calls(), fake.streams()]).toEqual([[], [], []]);
    await client.auth.test(); // the scripted failure is gone too
    const after = await client.chat.postMessage({ channel: CHANNEL, text: 'two' });
    expect(Number(after.ts)).toBeGreaterThan(Number(before.ts));
  });
});

describe('scripted failures and what the WebClient does with them', () => {
  it('default settings: a 429 pauses the client for Retry-After, then p-retry backs off ~1–2 s more, then retries', async () => {
    const patient = defaultClientFor(fake); // retryConfig: tenRetriesInAboutThirtyMinutes
    const limited: number[] = [];
    patient.on(WebClientEvent.RATE_LIMITED, (seconds: number) => limited.push(seconds));
    fake.failNext('chat.postMessage', 1, { status: 429, retryAfterSeconds: 1 });
    const started = Date.now();
    const result = await patient.chat.postMessage({ channel: CHANNEL, text: 'after the limit' });
    const elapsed = Date.now() - started;
    expect(result.ok).toBe(true);
    expect(limited).toEqual([1]);
    expect(fake.calls('chat.postMessage').map((call) => [call.status, call.error])).toEqual([
      [429, 'ratelimited'],
      [200, undefined],
    ]);
    expect(fake.messages()).toHaveLength(1);
    expect(elapsed).toBeGreaterThanOrEqual(2000); // 1 s Retry-After + ≥1 s p-retry backoff (minTimeout 1000, randomized ×1–2)
    expect(elapsed).toBeLessThan(4000);
  });

  it('default settings: while one call waits out a 429, every other call on that client waits too', async () => {
    const patient = defaultClientFor(fake);
    fake.failNext('chat.postMessage', 1, { status: 429, retryAfterSeconds: 1 });
    // `rate_limited` is emitted just before the client pauses its request queue: start the other
    // call right after that (a call started earlier, while the 429 is in flight, is not held).
    const other = new Promise<number>((resolve, reject) => {
      patient.once(WebClientEvent.RATE_LIMITED, () => {
        setImmediate(() => {
          const started = Date.now();
          patient.auth.test().then(() => {
            resolve(Date.now() - started);
          }, reject);
        });
      });
    });
    const limited = patient.chat.postMessage({ channel: CHANNEL, text: 'limited' });
    expect(await other).toBeGreaterThanOrEqual(950);
    await limited;
    expect(fake.calls().map((call) => call.method)).toEqual(['chat.postMessage', 'auth.test', 'chat.postMessage']);
  });

  it('rejectRateLimitedCalls: true rejects at once with WebAPIRateLimitedError carrying retryAfter in seconds', async () => {
    const impatient = defaultClientFor(fake, { rejectRateLimitedCalls: true });
    fake.failNext('chat.postMessage', 1, { status: 429, retryAfterSeconds: 30 });
    const started = Date.now();
    const error = await rejection(impatient.chat.postMessage({ channel: CHANNEL, text: 'x' }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(WebAPIRateLimitedError);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 30 });
    expect(error).toMatchObject({ code: 'slack_webapi_rate_limited_error', message: 'A rate-limit has been reached, you may retry this request in 30 seconds' });
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
    expect(fake.messages()).toEqual([]);
  });

  it('a 429 without Retry-After is a plain Error, not retried, whatever rejectRateLimitedCalls says', async () => {
    const patient = defaultClientFor(fake);
    fake.failNext('chat.postMessage', 1, { status: 429, retryAfterSeconds: null });
    const error = await rejection(patient.chat.postMessage({ channel: CHANNEL, text: 'x' }));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toHaveProperty('code');
    expect((error as Error).message).toMatch(/Retry header did not contain a valid timeout/);
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
  });

  it('HTTP 5xx is a WebAPIHTTPError and IS retried per retryConfig; ok:false errors are not', async () => {
    const retrying = clientFor(fake, { retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 } });
    fake.failNext('chat.postMessage', 1, { status: 500 });
    await retrying.chat.postMessage({ channel: CHANNEL, text: 'second try' });
    expect(fake.calls('chat.postMessage').map((call) => call.status)).toEqual([500, 200]);

    fake.reset();
    fake.failNext('chat.postMessage', 3, { status: 503 });
    const error = await rejection(retrying.chat.postMessage({ channel: CHANNEL, text: 'x' }));
    expect(error).toBeInstanceOf(WebAPIHTTPError);
    expect(error).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
    expect(fake.calls('chat.postMessage')).toHaveLength(3);

    fake.reset();
    fake.failNext('chat.postMessage', 1, { error: 'channel_not_found' });
    expect(await rejection(retrying.chat.postMessage({ channel: CHANNEL, text: 'x' }))).toMatchObject({ data: { error: 'channel_not_found' } });
    expect(fake.calls('chat.postMessage')).toHaveLength(1);
  });

  it('a dropped connection is a WebAPIRequestError', async () => {
    fake.failNext('*', 1, { disconnect: true });
    const error = await rejection(client.auth.test());
    expect(error).toBeInstanceOf(WebAPIRequestError);
    expect(error).toMatchObject({ code: ErrorCode.RequestError });
  });

  it('a scripted failure with a match answers only the calls it matches', async () => {
    fake.failNext('chat.postMessage', 1, { error: 'fatal_error' }, (args) => args['text'] === 'the one');
    await client.chat.postMessage({ channel: CHANNEL, text: 'another' });
    expect(await rejection(client.chat.postMessage({ channel: CHANNEL, text: 'the one' }))).toMatchObject({ data: { error: 'fatal_error' } });
    await client.chat.postMessage({ channel: CHANNEL, text: 'the one' });
  });

  it('wrong tokens do not use up scripted failures', async () => {
    fake.failNext('auth.test', 1, { error: 'fatal_error' });
    await rejection(new WebClient('xoxb-wrong', { slackApiUrl: fake.url, retryConfig: { retries: 0 } }).auth.test());
    expect(await rejection(client.auth.test())).toMatchObject({ data: { error: 'fatal_error' } });
    await client.auth.test();
  });
});

/** A stand-in for the service's Slack endpoint: verifies each request with bolt's own verifier. */
async function startReceiver(): Promise<{
  url: string;
  received: { headers: Record<string, string | string[] | undefined>; body: string; verified: string }[];
  close: () => Promise<void>;
}> {
  const received: { headers: Record<string, string | string[] | undefined>; body: string; verified: string }[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      let verified = 'ok';
      try {
        verifySlackRequest({
          signingSecret: SIGNING_SECRET,
          body,
          headers: {
            'x-slack-signature': String(req.headers['x-slack-signature'] ?? ''),
            'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
          },
        });
      } catch (error) {
        verified = error instanceof Error ? error.message : String(error);
      }
      received.push({ headers: req.headers, body, verified });
      res.writeHead(verified === 'ok' ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(verified);
    });
  });
  const listening = await listenOnLoopback(server);
  return { url: `${listening.origin}/slack/events`, received, close: () => listening.close() };
}

describe('signed requests to the service', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterEach(() => {
    receiver.received.length = 0;
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('signs as bolt’s verifySlackRequest expects: v0=hex(HMAC-SHA256("v0:<ts>:<body>"))', () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify(eventCallback(dmMessage({ user: USER, text: 'hi' })));
    const signature = signSlackRequest(SIGNING_SECRET, now, body);
    expect(signature).toMatch(/^v0=[0-9a-f]{64}$/);
    const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': now };
    expect(() => {
      verifySlackRequest({ signingSecret: SIGNING_SECRET, body, headers });
    }).not.toThrow();
    expect(() => {
      verifySlackRequest({ signingSecret: 'another-secret', body, headers });
    }).toThrow(/signature mismatch/);
    expect(() => {
      verifySlackRequest({ signingSecret: SIGNING_SECRET, body: `${body} `, headers });
    }).toThrow(/signature mismatch/);
    const old = now - 6 * 60;
    expect(() => {
      verifySlackRequest({
        signingSecret: SIGNING_SECRET,
        body,
        headers: { 'x-slack-signature': signSlackRequest(SIGNING_SECRET, old, body), 'x-slack-request-timestamp': old },
      });
    }).toThrow(/stale/);
  });

  it('posts events as JSON with Slack’s headers, retries included', async () => {
    const event = eventCallback(dmMessage({ user: USER, text: 'Where is order A-1042?' }), { eventId: 'Ev0RETRY001' });
    const answer = await postSlackEvent({ url: receiver.url, signingSecret: SIGNING_SECRET, body: event, retryNum: 1, retryReason: 'http_timeout' });
    expect(answer).toMatchObject({ status: 200, body: 'ok', contentType: 'text/plain' });
    const [request] = receiver.received;
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    });
    expect(JSON.parse(request?.body ?? '')).toEqual(event);
  });

  it('lets a test send a bad, missing or stale signature', async () => {
    const body = urlVerification('challenge-123');
    expect((await postSlackEvent({ url: receiver.url, signingSecret: 'wrong-secret', body })).status).toBe(401);
    expect((await postSlackEvent({ url: receiver.url, signingSecret: SIGNING_SECRET, body, signature: 'v0=00' })).status).toBe(401);
    const unsigned = await postSlackEvent({ url: receiver.url, signingSecret: SIGNING_SECRET, body, signature: null });
    expect(unsigned.status).toBe(401);
    expect(receiver.received[2]?.headers['x-slack-signature']).toBeUndefined();
    const stale = await postSlackEvent({ url: receiver.url, signingSecret: SIGNING_SECRET, body, timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.body).toMatch(/stale/);
    const raw = '{"type":"url_verification",  "challenge":"spaces matter"}';
    expect((await postSlackEvent({ url: receiver.url, signingSecret: SIGNING_SECRET, body: raw })).status).toBe(200);
    expect(receiver.received[4]?.body).toBe(raw);
  });

  it('posts interactions as form-encoded payload=<json>', async () => {
    const payload = blockActions({ user: { id: USER, team_id: 'T0FAKE01' }, actionId: 'approve', value: 'approval-0001', channel: DM, messageTs: '1700000000.000100' });
    const answer = await postSlackInteraction({ url: receiver.url, signingSecret: SIGNING_SECRET, payload });
    expect(answer.status).toBe(200);
    const [request] = receiver.received;
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request?.body.startsWith('payload=%7B%22type%22%3A%22block_actions%22')).toBe(true);
    expect(JSON.parse(new URLSearchParams(request?.body).get('payload') ?? '')).toEqual(payload);
  });
});

describe('payload builders', () => {
  /** The keys of a recorded payload's `event`. */
  const eventKeys = (name: Parameters<typeof readSlackFixture>[0]): string[] => Object.keys(readSlackFixture(name)['event'] as object);

  it('fill the recorded shapes', () => {
    const dm = dmMessage({ user: USER, text: 'Hi <@U0BOT001>!' });
    expect(Object.keys(dm)).toEqual(expect.arrayContaining(eventKeys('event-message-im')));
    expect(dm).toMatchObject({ type: 'message', channel: DM, channel_type: 'im', user: USER, text: 'Hi <@U0BOT001>!' });
    expect(dm.ts).toMatch(TS_FORMAT);
    expect(dm.event_ts).toBe(dm.ts);
    expect(dm.blocks?.[0]).toMatchObject({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'Hi ' }, { type: 'user', user_id: 'U0BOT001' }, { type: 'text', text: '!' }] }],
    });
    expect(dm).not.toHaveProperty('thread_ts');

    const envelope = eventCallback(dm, { eventId: 'Ev0TEST0001' });
    expect(Object.keys(envelope).toSorted()).toEqual(Object.keys(readSlackFixture('event-message-im')).toSorted());
    expect(envelope).toMatchObject({ type: 'event_callback', event_id: 'Ev0TEST0001', team_id: 'T0FAKE01', api_app_id: 'A0FAKE01', event: dm });
    expect(envelope.event_time).toBe(Math.floor(Number(dm.ts)));
    expect(eventCallback(dm).event_id).toMatch(/^Ev[A-Z0-9]{10}$/);

    const mention = appMention({ user: USER, text: 'check A-1042', channel: CHANNEL, threadTs: '1700000000.000100' });
    expect(Object.keys(mention)).toEqual(expect.arrayContaining(eventKeys('event-app-mention')));
    expect(mention).toMatchObject({ type: 'app_mention', text: '<@U0BOT001> check A-1042', channel: CHANNEL, thread_ts: '1700000000.000100' });
    expect(mention).not.toHaveProperty('channel_type');

    const reply = threadReply({ user: USER, text: 'and the invoice', channel: CHANNEL, threadTs: '1700000000.000100' });
    expect(Object.keys(reply)).toEqual(expect.arrayContaining(eventKeys('event-thread-reply')));
    expect(reply).toMatchObject({ thread_ts: '1700000000.000100', parent_user_id: USER, channel_type: 'channel' });
    expect(reply.ts).not.toBe(reply.thread_ts);

    const legacy = botMessage({ botId: 'B0OTHER01', text: 'Deploy done', channel: CHANNEL });
    expect(Object.keys(legacy)).toEqual(expect.arrayContaining(eventKeys('event-bot-message')));
    expect(legacy).toMatchObject({ subtype: 'bot_message', bot_id: 'B0OTHER01', username: 'deploy-bot' });
    expect(legacy).not.toHaveProperty('user');
    const echo = botMessage({ botId: 'B0BOT001', userId: 'U0BOT001', appId: 'A0FAKE01', text: 'my own reply', channel: DM, channelType: 'im' });
    expect(echo).toMatchObject({ subtype: 'bot_message' });
    const own = botMessage({ botId: 'B0BOT001', userId: 'U0BOT001', appId: 'A0FAKE01', text: 'my own reply', channel: DM, channelType: 'im', subtype: null });
    expect(own).toMatchObject({ user: 'U0BOT001', bot_id: 'B0BOT001', bot_profile: { user_id: 'U0BOT001' } });
    expect(own).not.toHaveProperty('subtype');

    const edited = messageChanged({ channel: DM, ts: dm.ts, user: USER, text: 'Where is A-1043?', previousText: 'Where is A-1042?' });
    expect(Object.keys(edited)).toEqual(expect.arrayContaining(eventKeys('event-message-changed')));
    expect(edited).toMatchObject({
      subtype: 'message_changed',
      hidden: true,
      message: { ts: dm.ts, text: 'Where is A-1043?', user: USER },
      previous_message: { ts: dm.ts, text: 'Where is A-1042?' },
    });
    expect(edited.ts).not.toBe(dm.ts);
    expect(edited).not.toHaveProperty('user');
  });

  it('carry shared files as a file_share message whose url_private_download the fake serves', async () => {
    const file = fake.addFile('%PDF-1.7 fake', { name: 'invoice.pdf', mimetype: 'application/pdf' });
    const event = dmMessage({ user: USER, text: 'here', files: [file] });
    expect(event).toMatchObject({ subtype: 'file_share', files: [{ id: file.id, filetype: 'pdf', url_private_download: file.url_private_download }] });
    const download = await fetch(event.files?.[0]?.url_private_download ?? '', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await download.text()).toBe('%PDF-1.7 fake');
  });

  it('build the url_verification and block_actions payloads', () => {
    expect(urlVerification('abc')).toEqual({ token: 'fakeVerificationToken0000', challenge: 'abc', type: 'url_verification' });
    const payload = blockActions({
      user: { id: USER, team_id: 'T0FAKE01' },
      actionId: 'approve',
      value: 'approval-0042',
      channel: DM,
      messageTs: '1700000000.000500',
      responseUrl: 'https://hooks.slack.com/actions/T0FAKE01/1/abc',
    });
    expect(Object.keys(payload).toSorted()).toEqual(Object.keys(readSlackFixture('block-actions')).toSorted());
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: USER, team_id: 'T0FAKE01' },
      container: { type: 'message', message_ts: '1700000000.000500', channel_id: DM, is_ephemeral: false },
      channel: { id: DM, name: 'directmessage' },
      message: { ts: '1700000000.000500' },
      response_url: 'https://hooks.slack.com/actions/T0FAKE01/1/abc',
      actions: [{ action_id: 'approve', value: 'approval-0042', type: 'button', block_id: 'decide' }],
    });
    expect(payload.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]{32}$/);
  });
});
