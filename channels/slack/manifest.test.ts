/**
 * The Slack app manifest people paste into "Create an app → From a manifest"
 * (`channels/slack/manifest.yaml`) against the code it sets Slack up for: it parses cleanly; both
 * request URLs point at the channel's route; every event it subscribes to is one the channel takes
 * in (and `assistant_thread_started`, which it does not read, is left out); the bot has the scope
 * of every subscribed event and of every Web API method `channels/slack/` calls; the scope that
 * sets a thread's status comes with Slack's agent surface; people can DM the bot; Socket Mode is
 * off until an app token is made for it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { createSlackRoutes } from './inbound.ts';
import { readSlackPayload } from './read-payload.ts';

interface Manifest {
  readonly _metadata?: { readonly major_version?: number };
  readonly display_information?: { readonly name?: string };
  readonly features?: {
    readonly bot_user?: { readonly display_name?: string; readonly always_online?: boolean };
    readonly app_home?: { readonly messages_tab_enabled?: boolean; readonly messages_tab_read_only_enabled?: boolean };
    readonly agent_view?: { readonly agent_description?: string };
    readonly assistant_view?: unknown;
  };
  readonly oauth_config?: { readonly scopes?: { readonly bot?: readonly string[]; readonly user?: readonly string[] } };
  readonly settings?: {
    readonly event_subscriptions?: { readonly request_url?: string; readonly bot_events?: readonly string[]; readonly user_events?: readonly string[] };
    readonly interactivity?: { readonly is_enabled?: boolean; readonly request_url?: string };
    readonly socket_mode_enabled?: boolean;
    readonly token_rotation_enabled?: boolean;
  };
}

const folder = new URL('./', import.meta.url);
const text = readFileSync(new URL('manifest.yaml', folder), 'utf8');
const document = parseDocument(text);
const manifest = document.toJS() as Manifest;
const botScopes = new Set(manifest.oauth_config?.scopes?.bot ?? []);
const botEvents = manifest.settings?.event_subscriptions?.bot_events ?? [];

/** The bot scope each Web API method the channel may call needs (`null`: none). */
const METHOD_SCOPES: Readonly<Record<string, string | null>> = {
  'auth.test': null,
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.delete': 'chat:write',
  'assistant.threads.setStatus': 'assistant:write',
  'assistant.threads.setTitle': 'assistant:write',
  'assistant.threads.setSuggestedPrompts': 'assistant:write',
  'conversations.open': 'im:write',
  // Finding a post whose send was cut short (find-sent.ts); also groups:, im: and mpim:history by conversation.
  'conversations.history': 'channels:history',
  'conversations.replies': 'channels:history',
  'conversations.info': 'channels:read',
  'users.info': 'users:read',
  'files.info': 'files:read',
  // Socket Mode: called with the app-level token (connections:write), not the bot's.
  'apps.connections.open': null,
};

/** The bot scope an event subscription needs. */
const EVENT_SCOPES: Readonly<Record<string, string>> = {
  'message.im': 'im:history',
  'message.channels': 'channels:history',
  'message.groups': 'groups:history',
  'message.mpim': 'mpim:history',
  app_mention: 'app_mentions:read',
};

/** Where each `message.*` subscription's events come from (`channel_type`). */
const CHANNEL_TYPES: Readonly<Record<string, string>> = { im: 'im', channels: 'channel', groups: 'group', mpim: 'mpim' };

/** The channel's own source (not its tests). */
function sources(): { readonly file: string; readonly source: string }[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => ({ file, source: readFileSync(new URL(file, folder), 'utf8') }));
}

/**
 * `auth.test`, `chat.postMessage` … : the Web API methods called on a client in `source`
 * (`client.chat.postMessage(`, `createSlackClient(slack).auth.test(`).
 */
function methodsCalled(source: string): string[] {
  const found = source.matchAll(/(?:[cC]lient|\))\.((?:apps|assistant|auth|bots|chat|conversations|files|reactions|team|users|views)(?:\.[A-Za-z]+)+)\(/g);
  return [...found].map((match) => match[1] ?? '');
}

/** An Events API body carrying one event of the kind `subscription` subscribes to. */
function eventBody(subscription: string): string {
  const [type, kind] = subscription.split('.') as [string, string | undefined];
  const channelType = kind === undefined ? undefined : CHANNEL_TYPES[kind];
  const channel = channelType === 'im' ? 'D0TEST001' : 'C0TEST001';
  const event = {
    type, channel, user: 'U0PERSON1', ts: '1700000000.000200', event_ts: '1700000000.000200', text: '<@U0BOT001> hello',
    ...(channelType === undefined ? {} : { channel_type: channelType }),
    // A channel message is taken only as a reply in a thread the bot is in.
    ...(channelType === undefined || channelType === 'im' ? {} : { thread_ts: '1700000000.000100', text: 'hello' }),
  };
  return JSON.stringify({ type: 'event_callback', team_id: 'T0TEST001', event_id: `Ev0${type.toUpperCase()}`, event });
}

describe('the Slack app manifest', () => {
  it('is YAML without errors or warnings, in the current manifest format', () => {
    expect(document.errors).toEqual([]);
    expect(document.warnings).toEqual([]);
    expect(manifest._metadata?.major_version).toBeGreaterThanOrEqual(2);
    expect(manifest.display_information?.name?.length).toBeGreaterThan(0);
    expect(manifest.display_information?.name?.length).toBeLessThanOrEqual(35);
  });

  it('sends events and button clicks to the channel\'s route, on a URL to be replaced', () => {
    const routes = createSlackRoutes({
      signingSecret: 'unused', botUserId: () => Promise.resolve('U0BOT001'),
      store: { inThread: () => Promise.resolve(false), joinThread: () => Promise.resolve() },
      normalise: () => { throw new Error('unused'); }, enqueue: () => Promise.resolve({ duplicate: false }),
      logger: pino({ level: 'silent' }), clock: () => new Date(),
    });
    const paths = routes.filter((route) => route.method === 'POST').map((route) => route.pattern);
    expect(paths).toEqual(['/slack/events']);
    const expected = `https://YOUR-PUBLIC-URL${paths[0] ?? ''}`;
    expect(manifest.settings?.event_subscriptions?.request_url).toBe(expected);
    expect(manifest.settings?.interactivity).toEqual({ is_enabled: true, request_url: expected });
  });

  it('subscribes to exactly the events the channel takes in', async () => {
    expect([...botEvents].sort()).toEqual(['app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim']);
    expect(manifest.settings?.event_subscriptions?.user_events ?? []).toEqual([]);
    const context = { botUserId: 'U0BOT001', botInThread: () => Promise.resolve(true), now: new Date('2023-11-14T22:13:20Z') };
    for (const subscription of botEvents) {
      const intent = await readSlackPayload(eventBody(subscription), 'application/json', context);
      expect({ subscription, kind: intent?.kind }).toEqual({ subscription, kind: 'message' });
    }
    // Subscribed to, it would be ignored: the manifest must not ask for it.
    const started = JSON.stringify({ type: 'event_callback', team_id: 'T0TEST001', event_id: 'Ev0STARTED', event: { type: 'assistant_thread_started', assistant_thread: { user_id: 'U0PERSON1', channel_id: 'D0TEST001', thread_ts: '1700000000.000100' } } });
    expect((await readSlackPayload(started, 'application/json', context))?.kind).toBe('ignored');
    expect(botEvents).not.toContain('assistant_thread_started');
  });

  it('asks for the scope of every subscribed event and of every Web API method the channel calls', () => {
    for (const event of botEvents) expect({ event, granted: botScopes.has(EVENT_SCOPES[event] ?? `(no scope known for ${event})`) }).toEqual({ event, granted: true });
    const called = sources().flatMap(({ file, source }) => methodsCalled(source).map((method) => ({ file, method })));
    expect(called.map((call) => call.method)).toEqual(expect.arrayContaining(['auth.test', 'chat.postMessage', 'chat.update', 'chat.postEphemeral', 'assistant.threads.setStatus']));
    for (const { file, method } of called) {
      // A method missing here needs its scope in manifest.yaml and a line in METHOD_SCOPES.
      expect({ file, method, known: method in METHOD_SCOPES }).toEqual({ file, method, known: true });
      const scope = METHOD_SCOPES[method];
      if (scope !== null && scope !== undefined) expect({ file, method, granted: botScopes.has(scope) }).toEqual({ file, method, granted: true });
    }
    // Files shared with a message are downloaded from their url_private with the bot token.
    if (sources().some(({ source }) => source.includes('url_private'))) expect(botScopes.has('files:read')).toBe(true);
    expect([...botScopes]).toEqual(expect.arrayContaining(['chat:write', 'im:history', 'im:read', 'im:write', 'app_mentions:read', 'channels:history', 'groups:history', 'mpim:history', 'files:read', 'assistant:write']));
    expect(manifest.oauth_config?.scopes?.user ?? []).toEqual([]);
  });

  it('turns on Slack\'s agent surface, which assistant:write comes with', () => {
    expect(botScopes.has('assistant:write')).toBe(true);
    expect(manifest.features?.agent_view?.agent_description?.length).toBeGreaterThan(0);
    expect(manifest.features?.agent_view?.agent_description?.length).toBeLessThanOrEqual(300);
    expect(manifest.features?.assistant_view).toBeUndefined();
  });

  it('has an always-online bot that people can DM', () => {
    expect(manifest.features?.bot_user?.always_online).toBe(true);
    expect(manifest.features?.bot_user?.display_name?.length).toBeGreaterThan(0);
    expect(manifest.features?.app_home).toMatchObject({ messages_tab_enabled: true, messages_tab_read_only_enabled: false });
  });

  it('leaves Socket Mode off, saying how to turn it on, and keeps one bot token', () => {
    expect(manifest.settings?.socket_mode_enabled).toBe(false);
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.trim().startsWith('socket_mode_enabled:'));
    let first = at;
    while (first > 0 && (lines[first - 1] ?? '').trim().startsWith('#')) first -= 1;
    const comment = lines.slice(first, at).join('\n');
    expect(comment).toContain('SLACK_APP_TOKEN');
    expect(comment).toContain('connections:write');
    expect(manifest.settings?.token_rotation_enabled).toBe(false);
  });
});
