import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { startFakeTwilio } from '../../test/fakes/fake-twilio.ts';
import type { FakeTwilio } from '../../test/fakes/fake-twilio-types.ts';
import { createSmsSender } from './send.ts';
import { createTwilioClient } from './twilio-client.ts';

const ACCOUNT = `AC${'6'.repeat(32)}`;
const TOKEN = 'twilio-sms-send';
const BOT = '+15005550006';
const PERSON = '+15558675310';

let fake: FakeTwilio;
beforeAll(async () => {
  fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
});
afterAll(() => fake.close());

const delivery = (key: string, to = PERSON): OutboundDelivery => ({ channel: 'sms', destination: { channel: 'sms', address: to }, idempotencyKey: key, payload: { to, body: 'Your table is booked.', kind: 'answer', segments: 1 } });

/** A sender whose opt-out store counts its look-ups; `optedOut` lists the numbers that sent STOP. */
function counted(optedOut: readonly string[] = []) {
  const lookups: string[] = [];
  const sender = createSmsSender({
    client: createTwilioClient({ accountSid: ACCOUNT, authToken: TOKEN, apiUrl: fake.url }),
    from: BOT,
    store: { isOptedOut: (number) => { lookups.push(number); return Promise.resolve(optedOut.includes(number)); }, optOut: () => Promise.resolve() },
    artifactUrl: (id) => `https://example.test/a/${id}`,
    statusCallback: 'https://example.test/webhooks/twilio/status',
  });
  return { sender, lookups };
}

describe('the SMS sender', () => {
  it('looks the opt-out up once when the outbound step prefetched it, and on demand when it did not', async () => {
    const { sender, lookups } = counted();
    const first = delivery('k-pre');
    sender.prefetch?.(first);
    expect(lookups).toEqual([PERSON]);
    expect((await sender.send(first)).providerMessageId).toMatch(/^SM/);
    expect(lookups).toEqual([PERSON]);
    await sender.send(delivery('k-plain'));
    expect(lookups).toEqual([PERSON, PERSON]);
  });

  it('sends nothing to an opted-out number, prefetched or not, and says so for good', async () => {
    const { sender } = counted([PERSON]);
    const before = fake.requests().length;
    const prefetched = delivery('k-stop');
    sender.prefetch?.(prefetched);
    await expect(sender.send(prefetched)).rejects.toMatchObject({ permanent: true, providerCode: '21610' });
    await expect(sender.send(delivery('k-stop-2'))).rejects.toMatchObject({ permanent: true, providerCode: '21610' });
    expect(fake.requests()).toHaveLength(before);
  });
});
