/**
 * The Cloud API transport and Graph client against the fake Graph API (Meta's wire format, the
 * bearer token, the 24-hour window), with artifacts in a real Redis: a text quoting a message, an
 * image and a document uploaded (the uploaded bytes identical to the artifact's) and sent, reply
 * buttons, a template outside the window, a 429 as a rate-limited DeliveryError with its
 * Retry-After, a 500 as retryable, 131047 as permanent, a message Meta would refuse stopped before
 * it is sent, an API down or silent (retryable), and the token kept off hosts that are not Meta's.
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCloudTransport } from '../../channels/whatsapp/cloud/cloud-transport.ts';
import { createGraphClient, type GraphClient } from '../../channels/whatsapp/cloud/graph-client.ts';
import type { WhatsAppTransport } from '../../channels/whatsapp/transport.ts';
import { DeliveryError } from '../../queues/delivery-error.ts';
import { deliveryTag } from '../../queues/sent-lookup.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import { startFakeGraph } from '../fakes/fake-graph.ts';
import type { FakeGraph } from '../fakes/fake-graph-types.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const TOKEN = 'EAAG-transport-test-token';
const ADA = '+447700900123';
const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let graph: FakeGraph;
let redis: Redis;
let client: GraphClient;
let artifacts: ArtifactStore;
let transport: WhatsAppTransport;

beforeAll(async () => {
  graph = await startFakeGraph({ token: TOKEN });
  redis = new Redis(redisUrl());
  client = createGraphClient({ apiUrl: graph.apiUrl, token: TOKEN, phoneNumberId: graph.phoneNumberId, timeoutMs: 2000 });
});

afterAll(async () => {
  redis.disconnect();
  await graph.close();
});

beforeEach(() => {
  graph.reset();
  graph.contactWrote(ADA);
  artifacts = createRedisArtifactStore({ redis, prefix: prefix() });
  transport = createCloudTransport({ client, artifacts });
});

async function rejection(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DeliveryError) return error;
    throw error;
  }
  throw new Error('the send was not refused');
}

describe('cloud transport: sends', () => {
  it('sends a text quoting a message, to the number without its plus, and answers the wamid', async () => {
    const { id } = await transport.send({ kind: 'text', to: ADA, text: 'Your flight is *on time*.', quoteId: 'wamid.QUOTED' }, 'delivery-1');
    const [sent] = graph.sends();
    expect(id).toBe(sent?.id);
    expect(id).toMatch(/^wamid\./);
    expect(sent?.body).toEqual({
      messaging_product: 'whatsapp', recipient_type: 'individual', to: '447700900123', type: 'text',
      text: { body: 'Your flight is *on time*.', preview_url: true }, context: { message_id: 'wamid.QUOTED' },
      biz_opaque_callback_data: deliveryTag('delivery-1'),
    });
    expect(graph.requests()[0]).toMatchObject({ method: 'POST', path: `/v26.0/${graph.phoneNumberId}/messages`, authorized: true });
  });

  it('uploads a PNG artifact (the same bytes) and sends it as an image with its caption', async () => {
    const bytes = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    const meta = await artifacts.put({ name: 'chart.png', mimeType: 'image/png', bytes });
    await transport.send({ kind: 'media', to: ADA, artifactId: meta.artifactId, name: 'chart.png', caption: 'Fares by day' }, 'delivery-2');
    const [upload] = graph.uploads();
    expect(upload?.bytes.equals(bytes)).toBe(true);
    expect(upload).toMatchObject({ mimeType: 'image/png', typeField: 'image/png', name: 'chart.png' });
    expect(graph.sends()[0]?.body).toMatchObject({ type: 'image', image: { id: upload?.mediaId, caption: 'Fares by day' } });
  });

  it('sends a PDF artifact as a document with its file name', async () => {
    const bytes = Buffer.from('%PDF-1.7\n% a ticket\n%%EOF\n');
    const meta = await artifacts.put({ name: 'ticket.pdf', mimeType: 'application/pdf', bytes });
    await transport.send({ kind: 'media', to: ADA, artifactId: meta.artifactId, name: 'MW304-ticket.pdf' }, 'delivery-3');
    const [upload] = graph.uploads();
    expect(upload?.bytes.equals(bytes)).toBe(true);
    expect(graph.sends()[0]?.body).toMatchObject({ type: 'document', document: { id: upload?.mediaId, filename: 'MW304-ticket.pdf' } });
    expect(graph.sends()[0]?.body['document']).not.toHaveProperty('caption');
  });

  it('refuses for good a medium whose artifact has expired, uploading nothing', async () => {
    const error = await rejection(transport.send({ kind: 'media', to: ADA, artifactId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'gone.pdf' }, 'delivery-4'));
    expect(error.permanent).toBe(true);
    expect(graph.uploads()).toEqual([]);
  });

  it('sends reply buttons', async () => {
    await transport.send({ kind: 'buttons', to: ADA, body: 'Book MW 304 for £118?', buttons: [{ id: 'apr:a1:a', title: 'Approve' }, { id: 'apr:a1:d', title: 'Deny' }], footer: 'Expires in 1 hour' }, 'delivery-5');
    expect(graph.sends()[0]?.body['interactive']).toEqual({
      type: 'button', body: { text: 'Book MW 304 for £118?' }, footer: { text: 'Expires in 1 hour' },
      action: { buttons: [{ type: 'reply', reply: { id: 'apr:a1:a', title: 'Approve' } }, { type: 'reply', reply: { id: 'apr:a1:d', title: 'Deny' } }] },
    });
  });

  it('sends a template to a contact outside the window, its parameter normalised', async () => {
    const bob = '+447700900456';
    graph.contactWrote(bob, new Date(Date.now() - 25 * 60 * 60 * 1000));
    await transport.send({ kind: 'template', to: bob, name: 'approval_request', language: 'en_GB', bodyParams: ['Book MW 304\n\nfor £118?'], quickReplies: ['apr:a1:a', 'apr:a1:d'] }, 'delivery-6');
    expect(graph.sends(bob)[0]?.body['template']).toEqual({
      name: 'approval_request', language: { code: 'en_GB' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Book MW 304 for £118?' }] },
        { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'apr:a1:a' }] },
        { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'apr:a1:d' }] },
      ],
    });
  });
});

describe('cloud transport: refusals and failures', () => {
  it('maps Meta\'s 131047 for free text outside the window to a permanent error with the provider code', async () => {
    const carol = '+447700900789';
    const error = await rejection(transport.send({ kind: 'text', to: carol, text: 'Hello again' }, 'delivery-7'));
    expect(error).toMatchObject({ permanent: true, providerCode: '131047', status: 400 });
    expect(error.message).toContain('more than 24 hours have passed');
    expect(graph.sends()).toEqual([]);
  });

  it('maps a 429 (130429) to a rate-limited error with Retry-After, then sends on the next try', async () => {
    graph.failNext(1, { status: 429, retryAfterSeconds: 3 });
    const error = await rejection(transport.send({ kind: 'text', to: ADA, text: 'Hi' }, 'delivery-8'));
    expect(error).toMatchObject({ code: 'delivery.rate_limited', permanent: false, retryAfterMs: 3000, providerCode: '130429', status: 429 });
    await transport.send({ kind: 'text', to: ADA, text: 'Hi' }, 'delivery-8');
    expect(graph.attempts().map((attempt) => attempt.status)).toEqual([429, 200]);
  });

  it('maps a 500 (131000) to a retryable error', async () => {
    graph.failNext(1, 500);
    const error = await rejection(transport.send({ kind: 'text', to: ADA, text: 'Hi' }, 'delivery-9'));
    expect(error).toMatchObject({ code: 'delivery.failed', permanent: false, providerCode: '131000', status: 500 });
  });

  it('refuses for good what Meta would refuse, sending nothing', async () => {
    const tooLong = await rejection(transport.send({ kind: 'text', to: ADA, text: 'x'.repeat(4097) }, 'delivery-10'));
    expect(tooLong.permanent).toBe(true);
    const title = await rejection(transport.send({ kind: 'buttons', to: ADA, body: 'Pick', buttons: [{ id: 'a', title: 'A title over twenty chars' }] }, 'delivery-11'));
    expect(title.permanent).toBe(true);
    const group = await rejection(transport.send({ kind: 'text', to: '120363041234567890@g.us', text: 'Hi all' }, 'delivery-12'));
    expect(group.permanent).toBe(true);
    expect(graph.attempts()).toEqual([]);
  });

  it('answers a wrong token with Meta\'s 190, for good', async () => {
    const wrong = createCloudTransport({ client: createGraphClient({ apiUrl: graph.apiUrl, token: 'EAAG-wrong', phoneNumberId: graph.phoneNumberId }), artifacts });
    const error = await rejection(wrong.send({ kind: 'text', to: ADA, text: 'Hi' }, 'delivery-13'));
    expect(error).toMatchObject({ permanent: true, providerCode: '190', status: 401 });
  });

  it('gives a retryable error when the API cannot be reached', async () => {
    const closed = await listenOnLoopback(createServer());
    await closed.close();
    const down = createGraphClient({ apiUrl: `${closed.origin}/v26.0`, token: TOKEN, phoneNumberId: graph.phoneNumberId, timeoutMs: 500 });
    const error = await rejection(down.sendMessage({ to: '447700900123', type: 'text', text: { body: 'Hi' } }));
    expect(error).toMatchObject({ code: 'delivery.failed', permanent: false });
    expect(error.message).toContain('could not be reached');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('gives up on an API that does not answer within the timeout, retryably', async () => {
    const silent = await listenOnLoopback(createServer(() => undefined));
    try {
      const slow = createGraphClient({ apiUrl: `${silent.origin}/v26.0`, token: TOKEN, phoneNumberId: graph.phoneNumberId, timeoutMs: 300 });
      const error = await rejection(slow.sendMessage({ to: '447700900123', type: 'text', text: { body: 'Hi' } }));
      expect(error).toMatchObject({ code: 'delivery.failed', permanent: false });
      expect(error.message).toContain('no answer within 0.3 s');
    } finally {
      await silent.close();
    }
  });
});

describe('graph client: media in', () => {
  it('looks a medium up and downloads its bytes with the token from the media URL', async () => {
    const bytes = Buffer.from('OggS voice bytes');
    const mediaId = graph.addMedia(bytes, 'audio/ogg');
    const info = await client.mediaInfo(mediaId);
    expect(info).toMatchObject({ mimeType: 'audio/ogg', fileSize: bytes.length });
    expect(new URL(info.url).pathname).toBe('/whatsapp_business/attachments/');
    expect((await client.download(info.url, 1024)).equals(bytes)).toBe(true);
    expect(graph.requests().every((request) => request.authorized)).toBe(true);
  });

  it('refuses a download over the cap as artifact.too_large', async () => {
    const info = await client.mediaInfo(graph.addMedia(Buffer.alloc(2048, 1), 'image/jpeg'));
    await expect(client.download(info.url, 1024)).rejects.toMatchObject({ code: 'artifact.too_large' });
  });

  it('never sends the token to a host that is not Meta\'s or the API\'s', async () => {
    const error = await rejection(client.download('https://files.example.com/whatsapp_business/attachments/?mid=1', 1024));
    expect(error.permanent).toBe(true);
    await expect(client.download('http://lookaside.fbsbx.com/x', 1024)).rejects.toBeInstanceOf(DeliveryError);
    expect(graph.requests()).toEqual([]);
  });
});
