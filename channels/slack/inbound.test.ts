import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dmMessage, eventCallback, postSlackEvent } from '../../test/fakes/slack-requests.ts';
import { startTestServer, type TestServer } from '../../test/web/http-test-server.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { createSlackRoutes } from './inbound.ts';
import { normaliseSlackEvent } from './normalise.ts';

const SECRET = 'inbound-unit-signing-secret';
let server: TestServer | undefined;

afterEach(async () => { await server?.close(); });

/** The route with `enqueue`; `joined` lists the threads remembered. */
async function start(enqueue: (injection: Injection) => Promise<{ readonly duplicate: boolean }>, joined: string[] = []): Promise<string> {
  const routes = createSlackRoutes({
    signingSecret: SECRET,
    botUserId: () => Promise.resolve('U0BOT001'),
    store: { inThread: () => Promise.resolve(false), joinThread: (team, channel, ts) => { joined.push(`${team}:${channel}:${ts}`); return Promise.resolve(); } },
    normalise: (event) => normaliseSlackEvent(event, { people: [], tenantId: 'default' }),
    enqueue,
    logger: pino({ level: 'silent' }),
    clock: () => new Date(),
  });
  server = await startTestServer(routes);
  return `${server.url}/slack/events`;
}

const dm = eventCallback(dmMessage({ user: 'U0ADA0001', text: 'hello', channel: 'D0ADA0001', ts: '1700000000.000100' }), { eventId: 'Ev0ROUTE001' });

describe('POST /slack/events', () => {
  it('answers 503 with Retry-After when the event cannot be enqueued, so Slack delivers it again; no thread is remembered', async () => {
    const joined: string[] = [];
    const url = await start(() => Promise.reject(new Error('queue down')), joined);
    const answer = await postSlackEvent({ url, signingSecret: SECRET, body: dm });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect(joined).toEqual([]);
  });

  it('answers 200 once enqueued, 400 for a signed body that is no Slack payload, 401 for a bad signature', async () => {
    const taken: Injection[] = [];
    const url = await start((injection) => { taken.push(injection); return Promise.resolve({ duplicate: false }); });
    expect((await postSlackEvent({ url, signingSecret: SECRET, body: dm })).status).toBe(200);
    expect((await postSlackEvent({ url, signingSecret: SECRET, body: 'not json' })).status).toBe(400);
    expect((await postSlackEvent({ url, signingSecret: 'another-secret', body: dm })).status).toBe(401);
    expect(taken.map((injection) => injection.id)).toEqual(['slack:T0FAKE01:Ev0ROUTE001']);
  });
});
