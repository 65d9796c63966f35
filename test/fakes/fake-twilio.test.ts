import { createServer } from 'node:http';
import twilioSdk from 'twilio';
import RequestClient from 'twilio/lib/base/RequestClient.js';
import Twilio from 'twilio/lib/rest/Twilio.js';
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeTwilio } from './fake-twilio-types.ts';
import { startFakeTwilio, twilioApi, twilioClientFor, TwilioRestException as RestException } from './fake-twilio.ts';
import { encodeTwilioForm, inboundSmsParams, parseTwilioForm, postTwilioWebhook, readTwilioFixture, smsSegments } from './twilio-webhook.ts';
import { rejection } from '../support/rejection.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

const ACCOUNT_SID = 'ACc0ffee00c0ffee00c0ffee00c0ffee00';
const AUTH_TOKEN = 'fake-twilio-auth-token-0123456789';
const OWNED = '+15005550006';
const SECOND = '+15005550007';
const CUSTOMER = '+15558675310';
const SERVICE = 'MG0123456789abcdef0123456789abcdef';
const PUBLIC_STATUS_URL = 'https://sb.example.test/twilio/status?channel=sms';

/** One request a local webhook receiver got. */
interface Received {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly params: Record<string, string | string[]>;
}

/** A stand-in for the service's webhook endpoint: records requests, answers empty TwiML. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, params: parseTwilioForm(Buffer.concat(parts).toString('utf8')) });
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end('<Response/>');
    });
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.origin, received, close: () => listening.close() };
}


function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

let fake: FakeTwilio;
let client: Twilio;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  fake = await startFakeTwilio({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    numbers: [OWNED, { phoneNumber: SECOND, smsUrl: 'https://sb.example.test/twilio/sms' }],
  });
  client = twilioClientFor(fake);
  receiver = await startReceiver();
});

afterEach(() => {
  fake.reset();
  receiver.received.length = 0;
});

afterAll(async () => {
  await fake.close();
  await receiver.close();
});

describe('the SDK pointed at the fake', () => {
  it('is the same client and helpers the top-level `twilio` export gives', () => {
    const sdk: unknown = twilioSdk;
    expect(Reflect.get(sdk as object, 'Twilio')).toBe(Twilio);
    expect(Reflect.get(sdk as object, 'validateRequest')).toBe(validateRequest);
    expect(Reflect.get(sdk as object, 'RestException')).toBe(RestException);
  });

  it('sends through client.api.baseUrl', () => {
    expect(twilioApi(client).baseUrl).toBe(fake.url);
    expect(twilioApi(client).absoluteUrl('2010-04-01/Accounts.json')).toBe(`${fake.url}/2010-04-01/Accounts.json`);
  });
});

describe('POST Messages.json', () => {
  it('answers 201 with the message resource and records the send', async () => {
    const message = await client.messages.create({
      to: CUSTOMER,
      from: OWNED,
      body: 'Your order A-1042 ships tomorrow.',
      statusCallback: PUBLIC_STATUS_URL,
    });
    expect(message.sid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(message).toMatchObject({
      accountSid: ACCOUNT_SID,
      to: CUSTOMER,
      from: OWNED,
      status: 'queued',
      direction: 'outbound-api',
      apiVersion: '2010-04-01',
      numSegments: '1',
      numMedia: '0',
      price: null,
      errorCode: null,
      messagingServiceSid: null,
      uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${message.sid}.json`,
      subresourceUris: { media: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${message.sid}/Media.json` },
    });
    expect(Number.isNaN(message.dateCreated.getTime())).toBe(false);
    expect(message.dateSent).toBeNull();

    const [recorded] = fake.messages(CUSTOMER);
    expect(recorded).toMatchObject({ sid: message.sid, from: OWNED, body: 'Your order A-1042 ships tomorrow.', mediaUrls: [], numSegments: 1 });
    expect(recorded?.params).toEqual({ To: CUSTOMER, StatusCallback: PUBLIC_STATUS_URL, From: OWNED, Body: 'Your order A-1042 ships tomorrow.' });
    expect(recorded?.idempotencyToken).toBeUndefined();
    expect(recorded?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(recorded?.headers['user-agent']).toMatch(/^twilio-node\/6\./);
    expect(recorded?.headers['authorization']).toBe(basicAuth(ACCOUNT_SID, AUTH_TOKEN));
    expect(fake.attempts()).toMatchObject([{ status: 201, sid: message.sid, to: CUSTOMER, code: undefined }]);
  });

  it('answers exactly the recorded shapes (message-create-201.json, error-21610.json)', async () => {
    const message = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' });
    const headers = { authorization: basicAuth(ACCOUNT_SID, AUTH_TOKEN) };
    const fetched = (await (await fetch(`${fake.url}${message.uri}`, { headers })).json()) as Record<string, unknown>;
    expect(Object.keys(fetched)).toEqual(Object.keys(readTwilioFixture('message-create-201')));
    fake.optedOut(CUSTOMER);
    const refused = await fetch(`${fake.url}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: encodeTwilioForm({ To: CUSTOMER, From: OWNED, Body: 'hi' }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(readTwilioFixture('error-21610'));
  });

  it('sends MediaUrl as a repeated parameter', async () => {
    const media = ['https://cdn.example.test/a.jpg?size=large', 'https://cdn.example.test/b.png'];
    const message = await client.messages.create({ to: CUSTOMER, from: OWNED, mediaUrl: media });
    expect(message.numMedia).toBe('2');
    const [recorded] = fake.messages();
    expect(recorded?.mediaUrls).toEqual(media);
    expect(recorded?.params['MediaUrl']).toEqual(media);
    expect(recorded?.rawBody).toContain(`MediaUrl=${encodeURIComponent(media[0] ?? '')}&MediaUrl=${encodeURIComponent(media[1] ?? '')}`);
  });

  it('answers `accepted` with no from for a Messaging Service send', async () => {
    const message = await client.messages.create({ to: CUSTOMER, messagingServiceSid: SERVICE, body: 'hi' });
    expect(message).toMatchObject({ status: 'accepted', from: null, messagingServiceSid: SERVICE });
    expect(fake.messages()[0]).toMatchObject({ from: undefined, messagingServiceSid: SERVICE, status: 'accepted' });
  });

  it('computes num_segments: GSM-7 160 / 153, UCS-2 70 / 67', async () => {
    const long = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'a'.repeat(161) });
    const cyrillic = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'ж'.repeat(71) });
    expect([long.numSegments, cyrillic.numSegments]).toEqual(['2', '2']);
  });

  it.each([
    { label: 'empty', body: '', segments: 1 },
    { label: '160 GSM', body: 'a'.repeat(160), segments: 1 },
    { label: '161 GSM', body: 'a'.repeat(161), segments: 2 },
    { label: '306 GSM', body: 'a'.repeat(306), segments: 2 },
    { label: '307 GSM', body: 'a'.repeat(307), segments: 3 },
    { label: '80 €, two septets each', body: '€'.repeat(80), segments: 1 },
    { label: '81 €', body: '€'.repeat(81), segments: 2 },
    { label: 'an escape pair kept whole', body: `${'a'.repeat(152)}€${'a'.repeat(10)}`, segments: 2 },
    { label: 'GSM accents', body: 'Ça coûte 5 €', segments: 1 },
    { label: '70 UCS-2', body: 'ж'.repeat(70), segments: 1 },
    { label: '71 UCS-2', body: 'ж'.repeat(71), segments: 2 },
    { label: '134 UCS-2', body: 'ж'.repeat(134), segments: 2 },
    { label: '135 UCS-2', body: 'ж'.repeat(135), segments: 3 },
    { label: '35 emoji (70 UTF-16 units)', body: '😀'.repeat(35), segments: 1 },
    { label: '36 emoji', body: '😀'.repeat(36), segments: 2 },
  ])('smsSegments: $label → $segments', ({ body, segments }) => {
    expect(smsSegments(body)).toBe(segments);
  });

  it.each([
    [{ to: '555-0100', from: OWNED, body: 'hi' }, 21211],
    [{ to: CUSTOMER, body: 'hi' }, 21603],
    [{ to: CUSTOMER, from: '+15005550999', body: 'hi' }, 21606],
    [{ to: CUSTOMER, from: OWNED }, 21602],
    [{ to: CUSTOMER, from: OWNED, body: 'a'.repeat(1601) }, 21617],
  ])('refuses %j with 400 / %i', async (params, code) => {
    const error = await rejection(client.messages.create(params));
    expect(error).toBeInstanceOf(RestException);
    expect(error).toMatchObject({ status: 400, code, moreInfo: `https://www.twilio.com/docs/errors/${code}` });
    expect(fake.attempts()).toMatchObject([{ status: 400, code }]);
    expect(fake.messages()).toEqual([]);
  });
});

describe('failures', () => {
  it('refuses wrong credentials with 401 / 20003', async () => {
    const intruder = twilioClientFor({ ...fake, authToken: 'wrong' });
    const error = await rejection(intruder.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' }));
    expect(error).toBeInstanceOf(RestException);
    expect(error).toMatchObject({ status: 401, code: 20003, message: 'Authenticate', moreInfo: 'https://www.twilio.com/docs/errors/20003' });
    expect(fake.attempts()).toMatchObject([{ status: 401, code: 20003 }]);
  });

  it('answers a scripted 429 with Retry-After; the SDK error drops the header, the RequestClient keeps it', async () => {
    const http = new RequestClient();
    const throttled = twilioClientFor(fake, { httpClient: http });
    fake.failNext(1, 429, { retryAfterSeconds: 7 });
    const error = await rejection(throttled.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' }));
    expect(error).toBeInstanceOf(RestException);
    expect(error).toMatchObject({
      status: 429,
      code: 20429,
      message: 'Too Many Requests',
      moreInfo: 'https://www.twilio.com/docs/errors/20429',
      details: undefined,
    });
    expect(error).not.toHaveProperty('headers');
    expect(error).not.toHaveProperty('response');
    const headers: unknown = http.lastResponse?.headers;
    const body: unknown = http.lastResponse?.body;
    expect(http.lastResponse?.statusCode).toBe(429);
    expect(headers).toMatchObject({ 'retry-after': '7' });
    expect(body).toEqual(readTwilioFixture('error-20429'));
    await expect(throttled.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' })).resolves.toMatchObject({ status: 'queued' });
    expect(fake.attempts().map((attempt) => attempt.status)).toEqual([429, 201]);
  });

  it('is retried by the SDK only with autoRetry, which ignores Retry-After', async () => {
    const retrying = twilioClientFor(fake, { autoRetry: true, maxRetries: 3, maxRetryDelay: 20 });
    fake.failNext(2, 429, { retryAfterSeconds: 30 });
    const started = Date.now();
    await retrying.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(fake.attempts().map((attempt) => attempt.status)).toEqual([429, 429, 201]);
  });

  it('answers 400 / 21610 to an opted-out number until opted back in', async () => {
    fake.optedOut(CUSTOMER);
    const error = await rejection(client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' }));
    expect(error).toBeInstanceOf(RestException);
    expect(error).toMatchObject({ status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    fake.optedOut(CUSTOMER, false);
    await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' });
    expect(fake.attempts().map((attempt) => [attempt.status, attempt.code])).toEqual([
      [400, 21610],
      [201, undefined],
    ]);
  });

  it('scripts 500s and 400s with any code and message', async () => {
    fake.failNext(1, 500);
    fake.failNext(1, 400, { code: 21211, message: "The 'To' number +15558675310 is not a valid phone number." });
    const send = () => client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' });
    expect(await rejection(send())).toMatchObject({ status: 500, code: 20500 });
    expect(await rejection(send())).toMatchObject({ status: 400, code: 21211, message: "The 'To' number +15558675310 is not a valid phone number." });
    await send();
  });

  it('drops the connection, or answers too late for the SDK timeout', async () => {
    fake.failNext(1, 'disconnect');
    const dropped = await rejection(client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' }));
    expect(dropped).not.toBeInstanceOf(RestException);
    fake.failNext(1, 500, { delayMs: 300 });
    const impatient = twilioClientFor(fake, { timeout: 50 });
    const late = await rejection(impatient.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi' }));
    expect(late).not.toBeInstanceOf(RestException);
    expect(String(late)).toMatch(/timeout/i);
    expect(fake.attempts().map((attempt) => attempt.status)).toEqual([0, 500]);
  });

  it('can lose the response of a send it accepted, so a blind retry sends twice', async () => {
    fake.failNext(1, 'disconnect', { acceptFirst: true });
    const send = () => client.messages.create({ to: CUSTOMER, from: OWNED, body: 'once?' });
    expect(await rejection(send())).not.toBeInstanceOf(RestException);
    await send();
    const [lost, retried] = fake.attempts();
    expect(lost).toMatchObject({ status: 0, to: CUSTOMER });
    expect(lost?.sid).toBe(fake.messages()[0]?.sid);
    expect(retried?.status).toBe(201);
    expect(fake.messages(CUSTOMER).map((message) => message.body)).toEqual(['once?', 'once?']);
  });
});

describe('account and numbers', () => {
  it('serves the account resource', async () => {
    const account = await twilioApi(client).v2010.account.fetch();
    expect(account).toMatchObject({ sid: ACCOUNT_SID, ownerAccountSid: ACCOUNT_SID, status: 'active', type: 'Full', friendlyName: 'Switchboard test account' });
    expect(account.uri).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}.json`);
    expect(account.subresourceUris['messages']).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    const same = await twilioApi(client).v2010.accounts(ACCOUNT_SID).fetch();
    expect(same.sid).toBe(ACCOUNT_SID);
  });

  it('refuses the account to wrong credentials', async () => {
    const intruder = twilioClientFor({ ...fake, authToken: 'wrong' });
    expect(await rejection(twilioApi(intruder).v2010.account.fetch())).toMatchObject({ status: 401, code: 20003 });
  });

  it('lists the incoming numbers matching PhoneNumber', async () => {
    const [owned, ...others] = await client.incomingPhoneNumbers.list({ phoneNumber: SECOND, limit: 20 });
    expect(others).toEqual([]);
    expect(owned).toMatchObject({
      phoneNumber: SECOND,
      friendlyName: '(500) 555-0007',
      smsUrl: 'https://sb.example.test/twilio/sms',
      capabilities: { sms: true, mms: true, voice: true, fax: false },
      accountSid: ACCOUNT_SID,
    });
    expect(owned?.sid).toMatch(/^PN[0-9a-f]{32}$/);
    expect(await client.incomingPhoneNumbers.list({ phoneNumber: '+15558675399' })).toEqual([]);
    expect(await client.incomingPhoneNumbers.list()).toHaveLength(2);
    expect(fake.requests()[0]?.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/IncomingPhoneNumbers.json?PhoneNumber=%2B15005550007&PageSize=20`);
  });
});

describe('media', () => {
  it('serves registered bytes to the account credentials only', async () => {
    const url = fake.addMedia(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg');
    expect(url).toMatch(new RegExp(`^${fake.url}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM[0-9a-f]{32}/Media/ME[0-9a-f]{32}$`));
    const ok = await fetch(url, { headers: { authorization: basicAuth(ACCOUNT_SID, AUTH_TOKEN) } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/jpeg');
    expect([...new Uint8Array(await ok.arrayBuffer())]).toEqual([0xff, 0xd8, 0xff, 0xe0]);
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 20003, status: 401 });
  });

  it('redirects to a CDN URL when asked, as Twilio does', async () => {
    const url = fake.addMedia('%PDF-1.7', 'application/pdf', { redirect: true });
    const headers = { authorization: basicAuth(ACCOUNT_SID, AUTH_TOKEN) };
    const first = await fetch(url, { headers, redirect: 'manual' });
    expect(first.status).toBe(307);
    expect(first.headers.get('location')).toMatch(new RegExp(`^${fake.url}/cdn/[0-9a-f]{32}$`));
    const followed = await fetch(url, { headers });
    expect(await followed.text()).toBe('%PDF-1.7');
  });
});

describe('status callbacks', () => {
  async function sentMessage(): Promise<string> {
    const message = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'hi', statusCallback: PUBLIC_STATUS_URL });
    return message.sid;
  }

  it('posts a delivered callback signed over the public StatusCallback URL', async () => {
    const sid = await sentMessage();
    const answer = await fake.deliverStatus(sid, 'delivered', { url: `${receiver.url}/twilio/status?channel=sms` });
    expect(answer).toEqual({ status: 200, body: '<Response/>', contentType: 'text/xml' });
    const [callback] = receiver.received;
    expect(callback?.path).toBe('/twilio/status?channel=sms');
    expect(Object.keys(callback?.params ?? {})).toEqual(Object.keys(readTwilioFixture('status-callback-delivered')));
    expect(callback?.params).toMatchObject({ MessageSid: sid, SmsSid: sid, MessageStatus: 'delivered', SmsStatus: 'delivered', To: CUSTOMER, From: OWNED, AccountSid: ACCOUNT_SID });
    const signature = String(callback?.headers['x-twilio-signature']);
    expect(validateRequest(AUTH_TOKEN, signature, PUBLIC_STATUS_URL, callback?.params ?? {})).toBe(true);
    expect(validateRequest(AUTH_TOKEN, signature, `${receiver.url}/twilio/status?channel=sms`, callback?.params ?? {})).toBe(false);
    expect(callback?.headers['i-twilio-idempotency-token']).toMatch(/^[0-9a-f-]{36}$/);
    const fetched = await client.messages(sid).fetch();
    expect(fetched.status).toBe('delivered');
    expect(fetched.dateSent).toBeInstanceOf(Date);
  });

  it('adds ErrorCode to undelivered and failed callbacks', async () => {
    const sid = await sentMessage();
    await fake.deliverStatus(sid, 'undelivered', { url: receiver.url });
    await fake.deliverStatus(sid, 'failed', { url: receiver.url, errorCode: 30007 });
    const [undelivered, failed] = receiver.received;
    expect(Object.keys(undelivered?.params ?? {})).toEqual(Object.keys(readTwilioFixture('status-callback-undelivered-30003')));
    expect(undelivered?.params).toMatchObject({ MessageStatus: 'undelivered', ErrorCode: '30003' });
    expect(failed?.params).toMatchObject({ MessageStatus: 'failed', ErrorCode: '30007' });
    expect(fake.messages()[0]).toMatchObject({ status: 'failed', errorCode: 30007 });
    expect((await client.messages(sid).fetch()).errorCode).toBe(30007);
  });

  it('delivers several statuses out of order, and forged or unsigned ones', async () => {
    const sid = await sentMessage();
    const answers = await fake.deliverStatuses(sid, ['sent', 'delivered'], { url: receiver.url, order: 'reversed' });
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(receiver.received.map((request) => request.params['MessageStatus'])).toEqual(['delivered', 'sent']);
    await fake.deliverStatus(sid, 'read', { url: receiver.url, signature: 'Zm9yZ2Vk', idempotencyToken: 'token-1' });
    await fake.deliverStatus(sid, 'read', { url: receiver.url, signature: null, idempotencyToken: null });
    const [forged, unsigned] = receiver.received.slice(2);
    expect(forged?.headers['x-twilio-signature']).toBe('Zm9yZ2Vk');
    expect(forged?.headers['i-twilio-idempotency-token']).toBe('token-1');
    expect(unsigned?.headers['x-twilio-signature']).toBeUndefined();
    expect(unsigned?.headers['i-twilio-idempotency-token']).toBeUndefined();
  });

  it('refuses to guess where to post', async () => {
    const message = await client.messages.create({ to: CUSTOMER, from: OWNED, body: 'no callback' });
    await expect(fake.deliverStatus(message.sid, 'delivered')).rejects.toThrow(/no StatusCallback/);
    await expect(fake.deliverStatus('SM00000000000000000000000000000000', 'delivered')).rejects.toThrow(/no message/);
  });
});

describe('inbound webhooks', () => {
  const publicUrl = 'https://sb.example.test/twilio/sms';

  it('posts a signed inbound SMS with the recorded parameter set', async () => {
    const params = inboundSmsParams({ from: CUSTOMER, to: OWNED, body: 'Where is order A-1042? 👀', accountSid: ACCOUNT_SID });
    expect(Object.keys(params)).toEqual(Object.keys(readTwilioFixture('inbound-sms')));
    expect(params).toMatchObject({ NumMedia: '0', NumSegments: '1', SmsStatus: 'received', ApiVersion: '2010-04-01' });
    expect(params['MessageSid']).toMatch(/^SM[0-9a-f]{32}$/);
    expect(params['SmsSid']).toBe(params['MessageSid']);

    const answer = await postTwilioWebhook({ url: `${receiver.url}/twilio/sms`, signedUrl: publicUrl, authToken: AUTH_TOKEN, params });
    expect(answer).toEqual({ status: 200, body: '<Response/>', contentType: 'text/xml' });
    const [request] = receiver.received;
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=UTF-8');
    expect(request?.params).toEqual(params);
    expect(validateRequest(AUTH_TOKEN, String(request?.headers['x-twilio-signature']), publicUrl, request?.params ?? {})).toBe(true);
    expect(validateRequest('another-token', String(request?.headers['x-twilio-signature']), publicUrl, request?.params ?? {})).toBe(false);
  });

  it('signs the URL it posts to by default, and sends the idempotency token given', async () => {
    const url = `${receiver.url}/twilio/sms?tenant=a+b`;
    const params = inboundSmsParams({ from: CUSTOMER, to: OWNED, body: 'x', accountSid: ACCOUNT_SID, messagingServiceSid: SERVICE, extra: { OptOutType: 'STOP' } });
    await postTwilioWebhook({ url, authToken: AUTH_TOKEN, params, headers: { idempotencyToken: 'same-token' } });
    const [request] = receiver.received;
    expect(request?.params).toMatchObject({ MessagingServiceSid: SERVICE, OptOutType: 'STOP' });
    expect(request?.headers['i-twilio-idempotency-token']).toBe('same-token');
    expect(validateRequest(AUTH_TOKEN, String(request?.headers['x-twilio-signature']), url, params)).toBe(true);
  });

  it('builds an inbound MMS around media served by the fake', async () => {
    const mediaUrl = fake.addMedia('png-bytes', 'image/png');
    const params = inboundSmsParams({ from: CUSTOMER, to: OWNED, body: '', accountSid: ACCOUNT_SID, media: [{ url: mediaUrl, contentType: 'image/png' }] });
    expect(Object.keys(params).sort()).toEqual(Object.keys(readTwilioFixture('inbound-mms')).sort());
    expect(params).toMatchObject({ NumMedia: '1', MediaUrl0: mediaUrl, MediaContentType0: 'image/png' });
    expect(mediaUrl).toContain(`/Messages/${params['MessageSid'] ?? 'missing'}/Media/`);
    const media = await fetch(params['MediaUrl0'] ?? '', { headers: { authorization: basicAuth(ACCOUNT_SID, AUTH_TOKEN) } });
    expect(await media.text()).toBe('png-bytes');
  });

  it('form-encodes like Twilio and round-trips', () => {
    const params = { Body: 'a+b c&d=é 😀', MediaUrl: ['https://x.test/1?a=b', 'https://x.test/2'] };
    const encoded = encodeTwilioForm(params);
    expect(encoded).toContain('Body=a%2Bb+c%26d%3D%C3%A9+%F0%9F%98%80');
    expect(parseTwilioForm(encoded)).toEqual(params);
  });
});
