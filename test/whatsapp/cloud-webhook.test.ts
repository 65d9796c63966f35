/**
 * The Cloud API webhook routes served over HTTP, with signed bodies built from Meta's recorded
 * payloads, media on the fake Graph API, statuses and artifacts in a real Redis, and an intake
 * that records what it is given: the subscription handshake right and wrong; valid, forged and
 * missing signatures (403, nothing taken); a redelivered message (200 both times); statuses out of
 * order; an image kept byte for byte, a voice note kept as audio, a medium too large as a note;
 * approval taps on reply buttons and template quick replies; reactions, other numbers; an intake
 * that fails (503 with Retry-After). Last, the real inbound queue behind the real intake.
 */
import { createServer } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCloudRoutes, type CloudRoutesOptions } from '../../channels/whatsapp/cloud/cloud-routes.ts';
import { createGraphClient } from '../../channels/whatsapp/cloud/graph-client.ts';
import { createCloudStatuses, type CloudStatuses } from '../../channels/whatsapp/cloud/statuses.ts';
import { createCloudFindSent } from '../../channels/whatsapp/cloud/find-sent.ts';
import { deliveryTag } from '../../queues/sent-lookup.ts';
import { createWhatsAppIntake } from '../../channels/whatsapp/intake.ts';
import { normaliseWhatsAppEvent } from '../../channels/whatsapp/normalise.ts';
import { createServiceWindows } from '../../channels/whatsapp/service-window.ts';
import type { WhatsAppEvent, WhatsAppIntake, WhatsAppMessageEvent } from '../../channels/whatsapp/whatsapp-event.ts';
import { createInboundQueue, INBOUND_QUEUE_NAME } from '../../queues/inbound-queue.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import { createRouter } from '../../src/runtime/http/router.ts';
import { startFakeGraph } from '../fakes/fake-graph.ts';
import type { FakeGraph } from '../fakes/fake-graph-types.ts';
import {
  buttonReplyWebhook,
  imageWebhook,
  messageWebhook,
  newWamid,
  postWhatsAppWebhook,
  quickReplyWebhook,
  statusWebhook,
  textWebhook,
  voiceWebhook,
  type WebhookAnswer,
  type WebhookBody,
} from '../fakes/whatsapp-webhook.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const APP_SECRET = 'meta-app-secret-for-tests';
const VERIFY_TOKEN = 'verify-token-7f3a';
const TOKEN = 'EAAG-webhook-test-token';
const MAX_MEDIA_BYTES = 512 * 1024;

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
let graph: FakeGraph;
let redis: Redis;
let server: ListeningServer;
let artifacts: ArtifactStore;
let statuses: CloudStatuses;

/** What the routes are currently wired to; each test sets its own. */
let wiring: { intake: WhatsAppIntake; statuses: CloudStatuses; artifacts: ArtifactStore };

/** An intake that keeps what it is given and says `duplicate` for a message id seen before. */
function recordingIntake(fail?: (event: WhatsAppEvent) => Error | undefined): WhatsAppIntake & { events: WhatsAppEvent[] } {
  const events: WhatsAppEvent[] = [];
  return {
    events,
    take(event) {
      const failure = fail?.(event);
      if (failure !== undefined) return Promise.reject(failure);
      const duplicate = events.some((seen) => seen.messageId === event.messageId);
      events.push(event);
      return Promise.resolve({ duplicate });
    },
  };
}

beforeAll(async () => {
  graph = await startFakeGraph({ token: TOKEN });
  redis = new Redis(redisUrl());
  const client = createGraphClient({ apiUrl: graph.apiUrl, token: TOKEN, phoneNumberId: graph.phoneNumberId, timeoutMs: 2000 });
  // The routes read the current wiring on every request, so each test can give its own intake.
  const options: CloudRoutesOptions = {
    appSecret: APP_SECRET,
    verifyToken: VERIFY_TOKEN,
    phoneNumberId: graph.phoneNumberId,
    intake: { take: (event) => wiring.intake.take(event) },
    statuses: { record: (status) => wiring.statuses.record(status), rememberTag: (tag, wamid) => wiring.statuses.rememberTag(tag, wamid) },
    media: { client, artifacts: { put: (artifact) => wiring.artifacts.put(artifact) }, maxBytes: MAX_MEDIA_BYTES },
    logger: pino({ level: 'silent' }),
    clock: () => new Date(),
  };
  server = await listenOnLoopback(createServer(createRouter(createCloudRoutes(options))));
});

afterAll(async () => {
  await server.close();
  await graph.close();
  redis.disconnect();
});

let intake: ReturnType<typeof recordingIntake>;

beforeEach(() => {
  graph.reset();
  intake = recordingIntake();
  artifacts = createRedisArtifactStore({ redis, prefix: prefix() });
  statuses = createCloudStatuses({ redis, prefix: `${prefix()}:whatsapp:cloud` });
  wiring = { intake, statuses, artifacts };
});

const webhookUrl = (): string => `${server.origin}/webhooks/whatsapp`;
const post = (body: WebhookBody | string, signature?: string | null): Promise<WebhookAnswer> =>
  postWhatsAppWebhook(webhookUrl(), body, { appSecret: APP_SECRET, ...(signature === undefined ? {} : { signature }) });

function onlyMessage(): WhatsAppMessageEvent {
  expect(intake.events).toHaveLength(1);
  const [event] = intake.events;
  if (event?.type !== 'whatsapp') throw new Error(`not a message: ${JSON.stringify(event)}`);
  return event;
}

describe('GET /webhooks/whatsapp: the subscription handshake', () => {
  const verify = (params: Record<string, string>) => fetch(`${webhookUrl()}?${new URLSearchParams(params).toString()}`);

  it('echoes hub.challenge as text when the mode and verify token are right', async () => {
    const response = await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('1158201444');
  });

  it('refuses a wrong token, a wrong mode, or none', async () => {
    const wrong = await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain('1');
    expect((await verify({ 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' })).status).toBe(403);
    expect((await verify({ 'hub.challenge': '1' })).status).toBe(403);
  });
});

describe('POST /webhooks/whatsapp: signatures', () => {
  it('takes a signed text message as an event: E.164 sender, profile name, Meta\'s time', async () => {
    const id = newWamid();
    const answer = await post(textWebhook('Is MW 304 on time?', { from: '447700900123', name: 'Ada Lovelace', id, timestamp: 1750090702 }));
    expect(answer.status).toBe(200);
    expect(onlyMessage()).toEqual({
      type: 'whatsapp', via: 'cloud', messageId: id, from: '+447700900123', profileName: 'Ada Lovelace',
      text: 'Is MW 304 on time?', attachments: [], notes: [], receivedAt: '2025-06-16T16:18:22.000Z',
    });
  });

  it('refuses a forged, missing or other-body signature with 403 and takes nothing', async () => {
    const body = textWebhook('Forged');
    expect((await post(body, `sha256=${'0'.repeat(64)}`)).status).toBe(403);
    expect((await post(body, null)).status).toBe(403);
    expect((await post(body, 'sha256=not-hex')).status).toBe(403);
    const other = await postWhatsAppWebhook(webhookUrl(), JSON.stringify(textWebhook('Other')), { appSecret: 'another-app-secret' });
    expect(other.status).toBe(403);
    expect(intake.events).toEqual([]);
  });

  it('refuses a body over 1 MB with 413', async () => {
    const huge = textWebhook('x'.repeat(1024 * 1024));
    expect((await post(huge)).status).toBe(413);
    expect(intake.events).toEqual([]);
  });

  it('answers 200 to a redelivered message both times (the intake drops the second at enqueue)', async () => {
    const body = textWebhook('Once only', { id: newWamid() });
    expect((await post(body)).status).toBe(200);
    expect((await post(body)).status).toBe(200);
    expect(intake.events.map((event) => event.messageId)).toEqual([body.entry[0]?.changes[0]?.value.messages?.[0]?.['id'], body.entry[0]?.changes[0]?.value.messages?.[0]?.['id']]);
  });

  it('answers 503 with Retry-After when the intake cannot take a message, so Meta sends it again', async () => {
    wiring = { ...wiring, intake: recordingIntake(() => new Error('Redis is down')) };
    const answer = await post(textWebhook('Lost?'));
    expect(answer.status).toBe(503);
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  });

  it('drops (200) a message the intake cannot read, rather than having Meta redeliver it forever', async () => {
    wiring = { ...wiring, intake: recordingIntake(() => new SwitchboardError('channel.invalid', 'Not a WhatsApp event.')) };
    expect((await post(textWebhook('odd'))).status).toBe(200);
  });
});

describe('POST /webhooks/whatsapp: what messages become', () => {
  it('keeps an image as an artifact, byte for byte, with its caption as the text', async () => {
    const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
    const mediaId = graph.addMedia(jpeg, 'image/jpeg');
    expect((await post(imageWebhook({ mediaId, caption: 'My boarding pass' }))).status).toBe(200);
    const event = onlyMessage();
    expect(event.text).toBe('My boarding pass');
    expect(event.attachments).toEqual([{ artifactId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown, name: 'image.jpg', mimeType: 'image/jpeg', sizeBytes: jpeg.length }]);
    const stored = await artifacts.get(event.attachments[0]?.artifactId ?? '');
    expect(stored?.bytes.equals(jpeg)).toBe(true);
  });

  it('keeps a voice note as voice-note.ogg, audio/ogg', async () => {
    const ogg = Buffer.from('OggS\u0000\u0002 opus voice note bytes');
    expect((await post(voiceWebhook(graph.addMedia(ogg, 'audio/ogg; codecs=opus')))).status).toBe(200);
    const event = onlyMessage();
    expect(event.attachments).toMatchObject([{ name: 'voice-note.ogg', mimeType: 'audio/ogg', sizeBytes: ogg.length }]);
    expect((await artifacts.get(event.attachments[0]?.artifactId ?? ''))?.bytes.equals(ogg)).toBe(true);
  });

  it('says in a note that a medium was too large, without downloading it, and still takes the message', async () => {
    const mediaId = graph.addMedia(Buffer.alloc(2 * MAX_MEDIA_BYTES, 7), 'image/png');
    expect((await post(imageWebhook({ mediaId, mimeType: 'image/png', caption: 'Big one' }))).status).toBe(200);
    const event = onlyMessage();
    expect(event).toMatchObject({ text: 'Big one', attachments: [] });
    expect(event.notes).toEqual(['(The image image.png was too large to keep at 1.0 MB; the limit is 0.5 MB.)']);
    expect(graph.requests().some((request) => request.path.startsWith('/whatsapp_business/attachments/'))).toBe(false);
  });

  it('says in a note that a medium could not be fetched', async () => {
    expect((await post(imageWebhook({ mediaId: '999000999' }))).status).toBe(200);
    expect(onlyMessage().notes[0]).toMatch(/^\(The image image\.jpg could not be fetched from WhatsApp: .*Graph 100/);
  });

  it('turns a tap on an approval reply button into a whatsapp-approval event', async () => {
    const id = newWamid();
    const hash = 'c0ffee'.repeat(10) + 'c0ff';
    await post(buttonReplyWebhook({ id: `apr:appr_7Kq2:a:${hash}`, title: 'Approve' }, { id, contextId: 'wamid.REQUEST', timestamp: 1750091122 }));
    expect(intake.events).toEqual([{
      type: 'whatsapp-approval', via: 'cloud', messageId: id, from: '+16505551234', profileName: 'Sheena Nelson',
      approvalId: 'appr_7Kq2', decision: 'granted', argsHash: hash, quotedId: 'wamid.REQUEST', receivedAt: '2025-06-16T16:25:22.000Z',
    }]);
  });

  it('turns a template quick-reply payload naming an approval into a whatsapp-approval event', async () => {
    await post(quickReplyWebhook({ payload: 'apr:appr_9Zx1:d', text: 'Deny' }));
    expect(intake.events).toMatchObject([{ type: 'whatsapp-approval', approvalId: 'appr_9Zx1', decision: 'denied' }]);
  });

  it('passes another button on as its title', async () => {
    await post(buttonReplyWebhook({ id: 'seat-window', title: 'Window seat' }));
    expect(onlyMessage().text).toBe('Window seat');
  });

  it('starts no turn for a reaction, and ignores changes for another business number', async () => {
    expect((await post(messageWebhook('webhook-reaction'))).status).toBe(200);
    expect((await post(textWebhook('Not ours', { phoneNumberId: '999999999999999' }))).status).toBe(200);
    expect(intake.events).toEqual([]);
  });

  it('passes an unsupported message on with a note', async () => {
    await post(messageWebhook('webhook-unsupported'));
    expect(onlyMessage().notes).toEqual(['(The person sent a kind of WhatsApp message this service cannot read: Message type is currently not supported.)']);
  });
});

describe('POST /webhooks/whatsapp: statuses', () => {
  it('keeps the furthest status: read then delivered leaves read', async () => {
    const wamid = newWamid();
    expect((await post(statusWebhook({ wamid, status: 'read', timestamp: 1750091600 }))).status).toBe(200);
    expect((await post(statusWebhook({ wamid, status: 'delivered', timestamp: 1750091590 }))).status).toBe(200);
    expect(await statuses.get(wamid)).toEqual({ wamid, status: 'read', recipient: '+16505551234', at: '2025-06-16T16:33:20.000Z' });
  });

  it('keeps the tag a status echoes, so a send whose outcome was lost is found by it', async () => {
    const wamid = newWamid();
    const tag = deliveryTag('turn-9.part-1|whatsapp:+16505551234');
    const findSent = createCloudFindSent({ statuses, settleMs: 60_000 });
    expect(await findSent('turn-9.part-1|whatsapp:+16505551234', { since: Date.now() })).toMatchObject({ kind: 'pending' });
    await post(statusWebhook({ wamid, status: 'sent', callbackData: tag }));
    expect(await findSent('turn-9.part-1|whatsapp:+16505551234', { since: Date.now() })).toEqual({ kind: 'sent', receipt: { providerMessageId: wamid, details: { via: 'cloud', foundBy: 'status webhook' } } });
    expect(await findSent('another-key', { since: Date.now() - 61_000 })).toMatchObject({ kind: 'unknown' });
  });

    it('lets failed replace delivered with its error, but never read', async () => {
    const failing = newWamid();
    await post(statusWebhook({ wamid: failing, status: 'sent' }, { wamid: failing, status: 'delivered' }));
    await post(statusWebhook({ wamid: failing, status: 'failed' }));
    expect(await statuses.get(failing)).toMatchObject({ status: 'failed', errorCode: '131047', errorTitle: 'Re-engagement message' });
    const read = newWamid();
    await post(statusWebhook({ wamid: read, status: 'read' }, { wamid: read, status: 'failed' }));
    expect((await statuses.get(read))?.status).toBe('read');
  });
});

describe('POST /webhooks/whatsapp into the real inbound queue', () => {
  it('enqueues a signed message once however often it comes, and nothing of a forged one', async () => {
    const url = new URL(redisUrl());
    const connection = { host: url.hostname, port: Number(url.port) };
    const inbound = createInboundQueue({ connection, prefix: prefix() });
    const taken: boolean[] = [];
    const real = createWhatsAppIntake({
      normalise: (event) => normaliseWhatsAppEvent(event, { people: [], tenantId: 'default' }),
      enqueue: async (injection) => {
        const result = await inbound.enqueue(injection);
        taken.push(result.duplicate);
        return result;
      },
      windows: createServiceWindows({ redis, prefix: `${prefix()}:whatsapp` }),
      logger: pino({ level: 'silent' }),
    });
    wiring = { ...wiring, intake: real };
    const queue = new Queue(INBOUND_QUEUE_NAME, { connection, prefix: prefix() });
    try {
      expect((await post(textWebhook('Forged', { id: newWamid() }), `sha256=${'a'.repeat(64)}`)).status).toBe(403);
      const body = textWebhook('Hello, is anyone there?', { id: newWamid() });
      expect((await post(body)).status).toBe(200);
      expect((await post(body)).status).toBe(200);
      expect(taken).toEqual([false, true]);
      const jobs = await queue.getJobs(['waiting', 'prioritized', 'active', 'delayed', 'completed']);
      expect(jobs).toHaveLength(1);
      expect(JSON.stringify(jobs[0]?.data)).toContain('Hello, is anyone there?');
    } finally {
      await queue.close();
      await inbound.close();
    }
  });
});
