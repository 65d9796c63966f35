import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeTwilio } from './fake-twilio-types.ts';
import { startFakeTwilio, twilioClientFor } from './fake-twilio.ts';

const ACCOUNT_SID = 'ACc0ffee00c0ffee00c0ffee00c0ffee01';
const AUTH_TOKEN = 'fake-twilio-list-token';
const OWNED = '+15005550006';
const CUSTOMER = '+15558675310';
const OTHER = '+15558675311';

let fake: FakeTwilio;
beforeAll(async () => {
  fake = await startFakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, numbers: [OWNED] });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
});

describe('the fake Twilio Messages list', () => {
  it('lists accepted messages newest first, filtered by To and From, across pages, to the real SDK', async () => {
    const client = twilioClientFor(fake);
    for (const [to, body] of [[CUSTOMER, 'one'], [OTHER, 'two'], [CUSTOMER, 'three'], [CUSTOMER, 'four']] as const) {
      await client.messages.create({ to, from: OWNED, body });
    }
    const listed = await client.messages.list({ to: CUSTOMER, from: OWNED, pageSize: 2 });
    expect(listed.map((message) => message.body)).toEqual(['four', 'three', 'one']);
    expect(listed[0]).toMatchObject({ to: CUSTOMER, from: OWNED, direction: 'outbound-api', numMedia: '0', status: 'queued' });
    expect(listed[0]?.dateCreated).toBeInstanceOf(Date);
    const pages = fake.requests().filter((request) => request.method === 'GET').map((request) => new URL(request.path, fake.url).searchParams.get('Page'));
    expect(pages).toEqual([null, '1']);
  });

  it('answers Twilio\'s page fields, and leaves out messages not sent yet when filtering by DateSent', async () => {
    const client = twilioClientFor(fake);
    const { sid } = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'sent' });
    await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'still queued' });
    // The status is recorded before the callback is posted (to nowhere here).
    await fake.deliverStatus(sid, 'sent', { url: 'http://127.0.0.1:9/status' }).catch(() => undefined);
    expect(fake.messages().find((message) => message.sid === sid)?.status).toBe('sent');
    const answer = await fetch(`${fake.url}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json?To=${encodeURIComponent(CUSTOMER)}&DateSent%3E=2020-01-01`, {
      headers: { authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}` },
    });
    const page = (await answer.json()) as Record<string, unknown>;
    expect((page['messages'] as { body: string }[]).map((message) => message.body)).toEqual(['sent']);
    expect(page).toMatchObject({ page: 0, page_size: 50, start: 0, end: 0, next_page_uri: null, previous_page_uri: null });
    expect(page['first_page_uri']).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json?To=%2B15558675310&DateSent%3E=2020-01-01&PageSize=50&Page=0`);
  });
});
