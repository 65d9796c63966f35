import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { startFakeTwilio } from '../../test/fakes/fake-twilio.ts';
import type { FakeTwilio } from '../../test/fakes/fake-twilio-types.ts';
import { createSmsFindSent } from './find-sent.ts';
import { createSmsSender } from './send.ts';
import { createTwilioClient, type TwilioClient } from './twilio-client.ts';

const ACCOUNT = `AC${'5'.repeat(32)}`;
const TOKEN = 'twilio-find-sent';
const BOT = '+15005550006';
const PERSON = '+15558675310';
const SERVICE = `MG${'7'.repeat(32)}`;

let fake: FakeTwilio;
let client: TwilioClient;

beforeAll(async () => {
  fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
  client = createTwilioClient({ accountSid: ACCOUNT, authToken: TOKEN, apiUrl: fake.url });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
});

function delivery(key: string, body: string, to = PERSON): OutboundDelivery {
  return { channel: 'sms', destination: { channel: 'sms', address: to }, idempotencyKey: key, payload: { to, body, kind: 'answer', segments: 1 } };
}

const sender = (from: string): ReturnType<typeof createSmsSender> =>
  createSmsSender({
    client,
    from,
    store: { isOptedOut: () => Promise.resolve(false), optOut: () => Promise.resolve() },
    artifactUrl: (id) => `https://example.test/a/${id}`,
    statusCallback: 'https://example.test/webhooks/twilio/status',
  });

describe('createSmsFindSent', () => {
  it('finds the message Twilio took for the delivery, among others to the same number', async () => {
    const since = Date.now();
    await sender(BOT).send(delivery('k-other', 'Your code is 1234.'));
    const receipt = await sender(BOT).send(delivery('k-wanted', 'Your table is booked.'));
    await sender(BOT).send(delivery('k-elsewhere', 'Your table is booked.', '+15558675311'));
    const found = await createSmsFindSent({ client, from: BOT, settleMs: 1000 })(delivery('k-wanted', 'Your table is booked.'), { since });
    expect(found).toEqual({ kind: 'sent', receipt });
    expect(fake.requests().filter((request) => request.method === 'GET').map((request) => new URL(request.path, fake.url).searchParams.get('To'))).toEqual([PERSON]);
  });

  it('answers absent when no message matches, once the earlier send had time to show', async () => {
    await sender(BOT).send(delivery('k-other', 'Something else.'));
    const findSent = createSmsFindSent({ client, from: BOT, settleMs: 60_000 });
    expect(await findSent(delivery('k-lost', 'Your table is booked.'), { since: Date.now() - 120_000 })).toEqual({ kind: 'absent' });
    expect(await findSent(delivery('k-lost', 'Your table is booked.'), { since: Date.now() })).toMatchObject({ kind: 'pending' });
  });

  it('does not take a message created outside the window of the earlier attempt', async () => {
    await sender(BOT).send(delivery('k-now', 'Your table is booked.'));
    const findSent = createSmsFindSent({ client, from: BOT, settleMs: 60_000 });
    expect(await findSent(delivery('k-earlier', 'Your table is booked.'), { since: Date.now() - 10 * 60_000 })).toEqual({ kind: 'absent' });
  });

  it('matches a Messaging Service send by the service, not a From number', async () => {
    const since = Date.now();
    const receipt = await sender(SERVICE).send(delivery('k-service', 'Sent through the service.'));
    const found = await createSmsFindSent({ client, from: SERVICE, settleMs: 1000 })(delivery('k-service', 'Sent through the service.'), { since });
    expect(found).toEqual({ kind: 'sent', receipt });
    expect(await createSmsFindSent({ client, from: BOT, settleMs: 0 })(delivery('k-service', 'Sent through the service.'), { since })).toEqual({ kind: 'absent' });
  });

  it('fails the look-up for good when Twilio refuses it, and for another try when Twilio cannot be reached', async () => {
    const wrong = createSmsFindSent({ client: createTwilioClient({ accountSid: ACCOUNT, authToken: 'wrong', apiUrl: fake.url }), from: BOT });
    await expect(wrong(delivery('k-1', 'Hi'), { since: 0 })).rejects.toMatchObject({ permanent: true, status: 401 });
    const closed = createSmsFindSent({ client: createTwilioClient({ accountSid: ACCOUNT, authToken: TOKEN, apiUrl: 'http://127.0.0.1:9' }), from: BOT });
    await expect(closed(delivery('k-1', 'Hi'), { since: 0 })).rejects.toMatchObject({ permanent: false });
  });
});
