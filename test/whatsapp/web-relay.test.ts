/**
 * The outbound relay: a worker's sender hands each message to the process holding the session
 * through Redis, and gets WhatsApp's message id (or the refusal) back. The same idempotency key
 * is sent once; without a ready session the sender fails, retryably, after its timeout.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import type { DeliveryError } from '../../queues/delivery-error.ts';
import { webKeys } from '../../channels/whatsapp/web/web-keys.ts';
import { createWebTransport, type WebTransport } from '../../channels/whatsapp/web/web-transport.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { useWebSession, type WebSession } from './web-harness.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const start = useWebSession();
const transports: WebTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

/** A transport whose blocking connections are closed after the test. */
function transportOn(redis: Redis, timeoutMs: number): WebTransport {
  const transport = createWebTransport({ redis, prefix: prefix(), timeoutMs });
  transports.push(transport);
  return transport;
}

/** A holder with a ready session, and a transport on another connection, as in another worker. */
async function holderAndWorker(timeoutMs = 5000): Promise<{ session: WebSession; transport: WebTransport }> {
  const session = await start(await connect(), prefix());
  await session.link();
  return { session, transport: transportOn(await connect(), timeoutMs) };
}

async function refusal(send: Promise<unknown>): Promise<DeliveryError> {
  return (await send.then(() => { throw new Error('sent'); }, (error: unknown) => error)) as DeliveryError;
}

describe('the outbound relay', () => {
  it('sends a worker\'s text through the session once, to the number\'s chat, quoting when asked', async () => {
    const { session, transport } = await holderAndWorker();
    const { id } = await transport.send({ kind: 'text', to: '+447700900123', text: 'Your flight is booked.', quoteId: 'false_447700900123@c.us_3EB0C767D26A1D8E2A01' }, 'delivery-1');
    expect(session.fake.world.sent).toEqual([
      { chatId: '447700900123@c.us', text: 'Your flight is booked.', options: { quotedMessageId: 'false_447700900123@c.us_3EB0C767D26A1D8E2A01' }, id },
    ]);
    const group = await transport.send({ kind: 'text', to: '120363041234567890@g.us', text: 'Gate 12.' }, 'delivery-2');
    expect(session.fake.world.sent[1]).toMatchObject({ chatId: '120363041234567890@g.us', id: group.id });
  });

  it('sends the same idempotency key once, answering the repeat from the record', async () => {
    const { session, transport } = await holderAndWorker();
    const first = await transport.send({ kind: 'text', to: '+447700900123', text: 'Once.' }, 'delivery-once');
    const second = await transport.send({ kind: 'text', to: '+447700900123', text: 'Once.' }, 'delivery-once');
    expect(second.id).toBe(first.id);
    expect(session.fake.world.sent).toHaveLength(1);
    const redis = await connect();
    expect(await redis.pttl(webKeys(prefix()).sent('delivery-once'))).toBeGreaterThan(86_000_000);
  });

  it('sends kept files: JPEG and PNG as pictures with their caption, others as documents', async () => {
    const { session, transport } = await holderAndWorker();
    const picture = await session.artifacts.put({ name: 'seat-map.png', mimeType: 'image/png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) });
    const pdf = await session.artifacts.put({ name: 'ticket.pdf', mimeType: 'application/pdf', bytes: Buffer.from('%PDF-1.7 ticket') });
    await transport.send({ kind: 'media', to: '+447700900123', artifactId: picture.artifactId, name: 'seat-map.png', caption: 'Your seat' }, 'media-1');
    await transport.send({ kind: 'media', to: '+447700900123', artifactId: pdf.artifactId, name: 'ticket.pdf' }, 'media-2');
    const [sentPicture, sentPdf] = session.fake.world.sent;
    expect(sentPicture).toMatchObject({ text: 'Your seat', options: { sendMediaAsDocument: false, caption: 'Your seat' }, media: { mimetype: 'image/png', filename: 'seat-map.png', isMessageMedia: true } });
    expect(sentPicture?.media?.bytes.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]))).toBe(true);
    expect(sentPdf).toMatchObject({ options: { sendMediaAsDocument: true }, media: { mimetype: 'application/pdf', filename: 'ticket.pdf', isMessageMedia: true } });
  });

  it('refuses for good what cannot be sent: a number not on WhatsApp, an expired file, buttons and templates', async () => {
    const { session, transport } = await holderAndWorker();
    session.fake.world.unknownNumbers.add('447700900777');
    expect(await refusal(transport.send({ kind: 'text', to: '+447700900777', text: 'Hi' }, 'unknown'))).toMatchObject({ code: 'delivery.permanent', providerCode: 'not-on-whatsapp' });
    expect(await refusal(transport.send({ kind: 'media', to: '+447700900123', artifactId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'gone.pdf' }, 'gone'))).toMatchObject({ code: 'delivery.permanent', providerCode: 'artifact-expired' });
    const buttons = refusal(transport.send({ kind: 'buttons', to: '+447700900123', body: 'Approve?', buttons: [{ id: 'a', title: 'Approve' }] }, 'buttons'));
    expect(await buttons).toMatchObject({ permanent: true, providerCode: 'unsupported-in-web-mode' });
    const template = refusal(transport.send({ kind: 'template', to: '+447700900123', name: 'notice', language: 'en', bodyParams: ['x'] }, 'template'));
    expect(await template).toMatchObject({ permanent: true });
    expect(session.fake.world.sent).toEqual([]);
  });

  it('fails retryably when the session fails to send, and sends on the next try', async () => {
    const { session, transport } = await holderAndWorker();
    session.fake.world.failSends = 1;
    const error = await refusal(transport.send({ kind: 'text', to: '+447700900123', text: 'Retry me' }, 'flaky'));
    expect(error).toMatchObject({ code: 'delivery.failed', permanent: false });
    expect(error.message).toContain('page crashed');
    await transport.send({ kind: 'text', to: '+447700900123', text: 'Retry me' }, 'flaky');
    expect(session.fake.world.sent).toHaveLength(1);
  });

  it('without a ready session fails retryably after the timeout, and the request is not sent later', async () => {
    const redis = await connect();
    const transport = transportOn(redis, 300);
    const startedAt = Date.now();
    const error = await refusal(transport.send({ kind: 'text', to: '+447700900123', text: 'Nobody home' }, 'lonely'));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect(error).toMatchObject({ code: 'delivery.failed', permanent: false, providerCode: 'session-not-ready', retryAfterMs: 15_000 });
    expect(error.message).toMatch(/not linked or not ready/);
    expect(await redis.llen(webKeys(prefix()).outbox)).toBe(0);

    // A request left on the outbox past its deadline (its sender gave up) is dropped unsent.
    await redis.lpush(webKeys(prefix()).outbox, JSON.stringify({ requestId: 'r-old', idempotencyKey: 'stale', message: { kind: 'text', to: '+447700900123', text: 'late' }, deadline: Date.now() - 1 }));
    const session = await start(await connect(), prefix());
    await session.link();
    await waitFor(async () => (await redis.llen(webKeys(prefix()).outbox)) === 0, 'the stale request popped');
    await transport.send({ kind: 'text', to: '+447700900123', text: 'now' }, 'fresh').catch(() => undefined);
    expect(session.fake.world.sent.map((sent) => sent.text)).not.toContain('late');
  });

  it('waits on one blocking connection per send in flight, kept between sends and closed with the transport', async () => {
    const session = await start(await connect(), prefix());
    await session.link();
    const redis = await connect();
    const duplicate = vi.spyOn(redis, 'duplicate');
    const transport = createWebTransport({ redis, prefix: prefix(), timeoutMs: 5000 });
    await transport.send({ kind: 'text', to: '+447700900123', text: 'One' }, 'pool-1');
    await transport.send({ kind: 'text', to: '+447700900123', text: 'Two' }, 'pool-2');
    expect(duplicate).toHaveBeenCalledTimes(1);
    // Two at once cannot share a connection that BLPOP holds: the second gets its own.
    await Promise.all([
      transport.send({ kind: 'text', to: '+447700900123', text: 'Three' }, 'pool-3'),
      transport.send({ kind: 'text', to: '+447700900123', text: 'Four' }, 'pool-4'),
    ]);
    expect(duplicate).toHaveBeenCalledTimes(2);
    expect(session.fake.world.sent.map((sent) => sent.text).sort()).toEqual(['Four', 'One', 'Three', 'Two']);
    const made = duplicate.mock.results.map((result) => result.value as Redis);
    await transport.close();
    await waitFor(() => Promise.resolve(made.every((connection) => connection.status === 'end')), 'the blocking connections closed');
    expect(redis.status).toBe('ready');
  });

  it('stops serving the outbox when the session drops', async () => {
    const { session, transport } = await holderAndWorker(400);
    session.fake.latest().disconnect('TIMEOUT');
    await session.linkState('disconnected');
    session.fake.world.refuseSessionWith = 'kept offline for this test';
    await session.linkState('auth-failed');
    const error = await refusal(transport.send({ kind: 'text', to: '+447700900123', text: 'anyone?' }, 'dropped'));
    expect(error.providerCode).toBe('session-not-ready');
    expect(session.fake.world.sent).toEqual([]);
  });
});
