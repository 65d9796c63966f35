/**
 * The fake Slack's Socket Mode on the wire, as Slack's own: `apps.connections.open` takes only the
 * app-level token and answers a one-time URL; the connection is greeted with `hello`; envelopes
 * arrive in Slack's shape; acks are recorded; a refresh is a `disconnect` message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { waitFor } from '../support/wait-for.ts';
import { startFakeSlack } from './fake-slack.ts';
import type { FakeSlack } from './fake-slack-types.ts';

const BOT_TOKEN = 'xoxb-fake-socket';
const APP_TOKEN = 'xapp-1-A0FAKE01-1-fake-socket';
let slack: FakeSlack;
const clients: WebSocket[] = [];

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN });
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await slack.close();
});

async function openConnection(token: string | undefined): Promise<{ ok: boolean; url?: string; error?: string }> {
  const response = await fetch(`${slack.url}apps.connections.open`, { method: 'POST', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return (await response.json()) as { ok: boolean; url?: string; error?: string };
}

/** Connects to `url`; resolves with the client and every message it receives (parsed). */
async function connect(url: string): Promise<{ client: WebSocket; received: Record<string, unknown>[] }> {
  const client = new WebSocket(url);
  clients.push(client);
  const received: Record<string, unknown>[] = [];
  client.on('message', (data) => { received.push(JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>); });
  await waitFor(() => received.length > 0, 'the hello');
  return { client, received };
}

describe('the fake Slack in Socket Mode', () => {
  it('opens a connection only for the app token', async () => {
    expect(await openConnection(undefined)).toEqual({ ok: false, error: 'not_authed' });
    expect(await openConnection(BOT_TOKEN)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await openConnection('xapp-1-A0FAKE01-1-other')).toEqual({ ok: false, error: 'invalid_auth' });
    const opened = await openConnection(APP_TOKEN);
    expect(opened.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]{36}&app_id=A0FAKE01$/);
  });

  it('greets with hello, sends envelopes in Slack\'s shape and records acks; a ticket is good once', async () => {
    const { url } = await openConnection(APP_TOKEN);
    const { client, received } = await connect(url ?? '');
    expect(received[0]).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0FAKE01' } });
    const envelopeId = slack.pushEnvelope({ type: 'events_api', payload: { type: 'event_callback', event_id: 'Ev0FAKE0001' }, retryAttempt: 1, retryReason: 'timeout' });
    await waitFor(() => received.length === 2, 'the envelope');
    expect(received[1]).toEqual({ envelope_id: envelopeId, type: 'events_api', payload: { type: 'event_callback', event_id: 'Ev0FAKE0001' }, accepts_response_payload: false, retry_attempt: 1, retry_reason: 'timeout' });
    client.send(JSON.stringify({ envelope_id: envelopeId, payload: {} }));
    await waitFor(() => slack.acks().length === 1, 'the ack recorded');
    expect(slack.acks()[0]).toMatchObject({ envelopeId, payload: {} });
    const reused = new WebSocket(url ?? '');
    clients.push(reused);
    await expect(new Promise((resolve, reject) => { reused.on('open', resolve).on('error', reject); })).rejects.toThrow(/401/);
    expect(slack.sockets()).toEqual({ open: 1, peak: 1, opened: 1 });
  });

  it('asks for a fresh connection with a disconnect message, and cannot push with none open', async () => {
    expect(() => slack.pushEnvelope({ type: 'interactive', payload: {} })).toThrow(/no Socket Mode connection/);
    const { received } = await connect((await openConnection(APP_TOKEN)).url ?? '');
    slack.refreshSockets();
    await waitFor(() => received.length === 2, 'the disconnect message');
    expect(received[1]).toMatchObject({ type: 'disconnect', reason: 'refresh_requested' });
  });
});
