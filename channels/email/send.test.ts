import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import type { MailServerEnv } from '../../src/config/env-types.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { startSmtpRecorder, useSmtpRecorder, type RecordedMail } from '../../test/support/smtp-recorder.ts';
import type { EmailPayload } from './email-payload.ts';
import { createMessageIds } from './message-ids.ts';
import { createEmailRender } from './render.ts';
import { createEmailSender, EMAIL_DESTINATION_RATE_LIMIT, EMAIL_RATE_LIMIT, type EmailSenderOptions, type SentMail } from './send.ts';
import { createSmtpTransport, isLoopbackHost } from './smtp-transport.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const smtp = useSmtpRecorder();

const FROM = 'Concierge <bot@example.com>';
const messageIds = createMessageIds({ secret: 'send-test-secret', domain: 'example.com' });
const render = createEmailRender({ from: FROM, fromAddress: 'bot@example.com', messageIds, clock: () => new Date('2030-01-01T10:00:00.000Z') });
const ada: Destination = { channel: 'email', address: 'ada@example.com', thread: { messageId: '<m2@mail.example>', references: '<m1@mail.example>', subject: 'AW: Paris' } };

const server = (port: number, login: Partial<Pick<MailServerEnv, 'user' | 'password'>> = {}): MailServerEnv => ({
  host: '127.0.0.1',
  port,
  secure: false,
  user: login.user,
  password: login.password,
});

interface Setup {
  readonly send: (payload: EmailPayload, idempotencyKey?: string, destination?: Destination) => ReturnType<ReturnType<typeof createEmailSender>['send']>;
  readonly store: ArtifactStore;
  readonly sent: SentMail[];
}

async function setup(overrides: Partial<EmailSenderOptions> = {}): Promise<Setup> {
  const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix() });
  const transport = createSmtpTransport(server(smtp().port));
  const sent: SentMail[] = [];
  const onSent = (mail: SentMail): Promise<void> => {
    sent.push(mail);
    return Promise.resolve();
  };
  const sender = createEmailSender({ transport, from: FROM, messageIds, artifacts: store, onSent, ...overrides });
  const send: Setup['send'] = (payload, idempotencyKey = 'key-1', destination = ada) => {
    const delivery: OutboundDelivery = { channel: 'email', destination, idempotencyKey, payload };
    return sender.send(delivery);
  };
  return { send, store, sent };
}

function answer(text = 'Your flight is **booked**.'): EmailPayload {
  const [payload] = render({ type: 'envelope', turnId: 't-1', turnState: 'complete', parts: [{ text, metadata: { partType: 'response' } }] }, ada);
  if (payload === undefined) throw new Error('nothing rendered');
  return payload;
}

const header = (mail: RecordedMail, name: string): unknown => mail.parsed.headers.get(name);

describe('the email sender', () => {
  it('sends multipart/alternative with the text and HTML parts, From, To and Subject', async () => {
    const { send } = await setup();
    await send(answer());
    const [mail] = await smtp().waitForMessages(1);
    expect(mail?.envelope).toEqual({ mailFrom: 'bot@example.com', rcptTo: ['ada@example.com'] });
    expect(mail?.raw.toString()).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail?.parsed.text).toContain('Your flight is booked.');
    expect(mail?.parsed.html).toContain('<strong>booked</strong>');
    expect(mail?.parsed.from?.value).toEqual([{ name: 'Concierge', address: 'bot@example.com' }]);
    expect(mail?.parsed.subject).toBe('Re: Paris');
  });

  it('sends the threading headers, as mailparser reads them back', async () => {
    const { send } = await setup();
    const receipt = await send(answer());
    const [mail] = await smtp().waitForMessages(1);
    const messageId = messageIds.forDelivery('key-1');
    expect(receipt).toMatchObject({ providerMessageId: messageId, details: { accepted: ['ada@example.com'], response: expect.stringMatching(/^250/) as unknown } });
    expect(mail?.parsed.messageId).toBe(messageId);
    expect(mail?.parsed.inReplyTo).toBe('<m2@mail.example>');
    expect(mail?.parsed.references).toEqual(['<m1@mail.example>', '<m2@mail.example>']);
  });

  it('marks answers auto-replied and approval mail auto-generated, suppresses auto-responses, sets no Precedence', async () => {
    const { send } = await setup();
    const [request] = render(
      { type: 'approval-request', record: sampleApproval({ approvalId: 'AbCdEfGhIjKlMnOpQrStUv', status: 'pending' }), partId: 'p', part: { metadata: { partType: 'approval-request' } } },
      { channel: 'email', address: 'boss@example.com' },
    );
    await send(answer(), 'key-1');
    await send(request ?? answer(), 'key-2', { channel: 'email', address: 'boss@example.com' });
    const [reply, approval] = await smtp().waitForMessages(2);
    if (reply === undefined || approval === undefined) throw new Error('mail missing');
    expect(header(reply, 'auto-submitted')).toBe('auto-replied');
    expect(header(approval, 'auto-submitted')).toBe('auto-generated');
    expect(header(reply, 'x-auto-response-suppress')).toBe('All');
    expect(header(reply, 'precedence')).toBeUndefined();
    expect(approval.parsed.messageId).toBe(messageIds.forApproval('AbCdEfGhIjKlMnOpQrStUv', 'boss@example.com'));
  });

  it('gives the same Message-ID to the same idempotency key, and another to another key', async () => {
    const { send } = await setup();
    await send(answer(), 'turn-7.envelope');
    await send(answer(), 'turn-7.envelope');
    await send(answer(), 'turn-8.envelope');
    const ids = (await smtp().waitForMessages(3)).map((mail) => mail.parsed.messageId);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('attaches artifact bytes byte-identical, and says which artifacts are gone', async () => {
    const { send, store } = await setup();
    const bytes = randomBytes(50_000);
    const meta = await store.put({ name: 'ticket.pdf', mimeType: 'application/pdf', bytes });
    const attachments = [{ artifactId: meta.artifactId, name: 'ticket.pdf' }, { artifactId: 'ZZZZZZZZZZZZZZZZZZZZZZ', name: 'old-map.png' }];
    await send({ ...answer(), attachments });
    const [mail] = await smtp().waitForMessages(1);
    expect(mail?.parsed.attachments).toHaveLength(1);
    expect(mail?.parsed.attachments[0]?.filename).toBe('ticket.pdf');
    expect(mail?.parsed.attachments[0]?.contentType).toBe('application/pdf');
    expect(mail?.parsed.attachments[0]?.content.equals(bytes)).toBe(true);
    expect(mail?.parsed.text).toMatch(/old-map\.png could not be attached: it is no longer available\.\s+-- \nConcierge/);
    expect(mail?.parsed.html).toContain('<p>old-map.png could not be attached: it is no longer available.</p>');
  });

  it('tells onSent the Message-ID and destination; a failing onSent does not fail the send', async () => {
    const { send, sent } = await setup();
    await send(answer());
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ messageId: messageIds.forDelivery('key-1'), destination: ada, payload: { kind: 'answer' } });
    const failing = await setup({ onSent: () => Promise.reject(new Error('redis down')) });
    const receipt = await failing.send(answer(), 'key-2');
    expect(receipt.details).toMatchObject({ onSentError: 'redis down' });
  });

  it('turns a 451 into a retryable DeliveryError with a retry hint', async () => {
    const { send } = await setup();
    smtp().failNext(451, '4.7.1 Greylisted, try again later');
    const error = await send(answer()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ permanent: false, retryable: true, providerCode: '451', retryAfterMs: 300_000, code: 'delivery.failed' });
    expect((error as Error).message).toContain('Greylisted');
    await send(answer());
    expect(await smtp().waitForMessages(1)).toHaveLength(1);
  });

  it('turns a 550 into a permanent DeliveryError with the code and the server text', async () => {
    const { send } = await setup();
    smtp().failNext(550, '5.1.1 No such mailbox', 'rcpt');
    const error = await send(answer()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ permanent: true, providerCode: '550', code: 'delivery.permanent' });
    expect((error as Error).message).toContain('No such mailbox');
    expect(smtp().messages()).toEqual([]);
  });

  it('treats an unreachable server as retryable, and a payload of another shape as permanent', async () => {
    const closed = await startSmtpRecorder();
    await closed.close();
    const store = createRedisArtifactStore({ redis: await connect(), prefix: prefix() });
    const sender = createEmailSender({ transport: createSmtpTransport(server(closed.port)), from: FROM, messageIds, artifacts: store });
    const delivery = (payload: Record<string, unknown>): OutboundDelivery => ({ channel: 'email', destination: ada, idempotencyKey: 'k', payload });
    await expect(sender.send(delivery(answer()))).rejects.toMatchObject({ permanent: false, retryable: true });
    await expect(sender.send(delivery({ to: 'ada@example.com', text: 'hi' }))).rejects.toMatchObject({ permanent: true });
  });

  it('declares its limits and that SMTP does not deduplicate', async () => {
    const { rateLimit, destinationRateLimit, providerIdempotent } = createEmailSender({ transport: createSmtpTransport(server(1)), from: FROM, messageIds, artifacts: { get: () => Promise.resolve(undefined) } });
    expect({ rateLimit, destinationRateLimit, providerIdempotent }).toEqual({ rateLimit: EMAIL_RATE_LIMIT, destinationRateLimit: EMAIL_DESTINATION_RATE_LIMIT, providerIdempotent: false });
    await Promise.resolve();
  });
});

describe('the SMTP transport', () => {
  it('logs in with the URL credentials', async () => {
    const guarded = await startSmtpRecorder({ user: 'bot', password: 'p@ss word' });
    try {
      const transport = createSmtpTransport(server(guarded.port, { user: 'bot', password: 'p@ss word' }));
      await expect(transport.verify()).resolves.toBe(true);
      await transport.sendMail({ from: FROM, to: 'ada@example.com', subject: 's', text: 't' });
      expect((await guarded.waitForMessages(1))[0]?.user).toBe('bot');
      await expect(createSmtpTransport(server(guarded.port, { user: 'bot', password: 'wrong' })).verify()).rejects.toThrow();
    } finally {
      await guarded.close();
    }
  });

  it('requires STARTTLS before a password crosses the network, never for loopback', () => {
    const options = (host: string, user?: string): boolean | undefined =>
      createSmtpTransport({ host, port: 587, secure: false, user, password: user === undefined ? undefined : 'x' }).options.requireTLS;
    expect(options('smtp.example.com', 'bot')).toBe(true);
    expect(options('smtp.example.com')).toBe(false);
    expect(options('127.0.0.1', 'bot')).toBe(false);
    expect(createSmtpTransport({ host: 'smtp.example.com', port: 465, secure: true, user: 'bot', password: 'x' }).options).toMatchObject({ secure: true, requireTLS: false, pool: false });
    expect([isLoopbackHost('localhost'), isLoopbackHost('127.1.2.3'), isLoopbackHost('[::1]'), isLoopbackHost('mail.local')]).toEqual([true, true, true, false]);
  });
});
