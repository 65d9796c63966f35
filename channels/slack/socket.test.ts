import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import type { FakeSlack } from '../../test/fakes/fake-slack-types.ts';
import { dmMessage, eventCallback } from '../../test/fakes/slack-requests.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import type { RunningListener } from '../channel.ts';
import type { SlackIntake, SlackPayloadInput } from './intake.ts';
import { createSlackSocketListener } from './socket.ts';

const APP_TOKEN = 'xapp-1-A0FAKE01-1-unit';
let slack: FakeSlack;
let running: RunningListener | undefined;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: 'xoxb-unit', appToken: APP_TOKEN });
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await slack.close();
});

/** Starts the listener under a fence of its own; `intake` sees every payload. */
async function listen(intake: SlackIntake, appToken = APP_TOKEN): Promise<AbortController> {
  const lease = new AbortController();
  const listener = createSlackSocketListener({ appToken, apiUrl: slack.url, intake, logger: pino({ level: 'silent' }) });
  running = await listener.start({ leaseKey: 'test:lease', token: 1, signal: lease.signal });
  return lease;
}

const event = (eventId: string): object => eventCallback(dmMessage({ user: 'U0ADA0001', text: 'hi' }), { eventId });

describe('the Slack Socket Mode listener', () => {
  it('names its lease after the app token without showing it', () => {
    const key = createSlackSocketListener({ appToken: APP_TOKEN, apiUrl: 'http://127.0.0.1:1/api/', intake: () => Promise.resolve({ kind: 'unreadable' }), logger: pino({ level: 'silent' }) }).singletonKey;
    expect(key).toMatch(/^socket:[0-9a-f]{16}$/);
    expect(key).not.toContain('xapp');
  });

  it('acks an envelope only once the intake took it; a failed intake leaves it for Slack to deliver again', async () => {
    const seen: SlackPayloadInput[] = [];
    await listen((input) => {
      seen.push(input);
      return seen.length === 1 ? Promise.reject(new Error('queue down')) : Promise.resolve({ kind: 'taken', injectionId: 'x', duplicate: false });
    });
    const payload = event('Ev0UNIT0001');
    const first = slack.pushEnvelope({ type: 'events_api', payload });
    await waitFor(() => seen.length === 1, 'the first delivery taken in');
    const again = slack.pushEnvelope({ type: 'events_api', payload, retryAttempt: 1 });
    await waitFor(() => slack.acks().some((ack) => ack.envelopeId === again), 'the redelivery acked');
    expect(slack.acks().map((ack) => ack.envelopeId)).toEqual([again]);
    expect(slack.acks().some((ack) => ack.envelopeId === first)).toBe(false);
    expect(seen).toEqual([{ envelope: payload }, { envelope: payload }]);
  });

  it('acks envelopes it does not take without reading them', async () => {
    const seen: SlackPayloadInput[] = [];
    await listen((input) => {
      seen.push(input);
      return Promise.resolve({ kind: 'ignored', reason: 'test' });
    });
    const command = slack.pushEnvelope({ type: 'slash_commands', payload: { command: '/switchboard' } });
    await waitFor(() => slack.acks().some((ack) => ack.envelopeId === command), 'the slash command acked');
    expect(seen).toEqual([]);
  });

  it('closes the socket when the lease is lost, and acks nothing after', async () => {
    const lease = await listen(() => Promise.resolve({ kind: 'ignored', reason: 'test' }));
    expect(slack.sockets().open).toBe(1);
    lease.abort(new Error('lease lost'));
    await waitFor(() => slack.sockets().open === 0, 'the socket closed');
  });

  it('fails to start with a wrong app token, opening nothing', async () => {
    await expect(listen(() => Promise.resolve({ kind: 'unreadable' }), 'xapp-1-A0FAKE01-1-wrong')).rejects.toThrow(/invalid_auth/);
    expect(slack.sockets().opened).toBe(0);
  });
});
