/**
 * The WhatsApp Web listener with the fake client, under a real lease on a real Redis: linking by
 * QR code, messages to intake events (group policy, own messages, media, voice notes), retries of
 * an intake that rejects, a dropped, logged-out or refused session followed by a new client, the
 * catch-up of messages that came while offline, and stopping.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WhatsAppMessageEvent } from '../../channels/whatsapp/whatsapp-event.ts';
import { createRedisSessionStore } from '../../channels/whatsapp/web/redis-session-store.ts';
import { REMOTE_SESSION_NAME } from '../../channels/whatsapp/web/web-client.ts';
import { fakeChat, messageFixture, webMessage } from '../fakes/fake-wwebjs-message.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { useWebSession, type WebSession } from './web-harness.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const start = useWebSession();

async function linked(options: Parameters<typeof start>[2] = {}): Promise<WebSession> {
  const session = await start(await connect(), prefix(), options);
  await session.link();
  return session;
}

/** Delivers messages, then one more that is taken, and returns what was taken before it. */
async function takenOf(session: WebSession, ...messages: ReturnType<typeof webMessage>[]): Promise<WhatsAppMessageEvent[]> {
  const marker = webMessage('text-message', { body: 'marker' });
  for (const message of [...messages, marker]) session.fake.latest().receive(message);
  await waitFor(() => session.intake.events.some((event) => event.messageId === marker.id._serialized), 'the marker message taken');
  return session.intake.events.filter((event): event is WhatsAppMessageEvent => event.type === 'whatsapp' && event.messageId !== marker.id._serialized);
}

const sessionKept = async (session: WebSession): Promise<boolean> =>
  createRedisSessionStore({ redis: await connect(), prefix: prefix(), fence: session.fence, dataPath: tmpdir() }).sessionExists({ session: REMOTE_SESSION_NAME });

describe('linking', () => {
  it('shows the QR code (link state and terminal), and once scanned keeps the session in Redis and is ready with the number', async () => {
    const session = await start(await connect(), prefix());
    const waiting = await session.linkState('waiting-for-qr');
    const client = session.fake.latest();
    expect(waiting.qr).toBe(client.qrCodes[0]);
    expect(waiting.token).toBe(session.fence.token);
    await waitFor(() => session.printed.length === 1, 'the QR code printed');
    expect(session.printed[0]).toBe(client.qrCodes[0]);
    expect(await sessionKept(session)).toBe(false);

    await client.scan();
    const ready = await session.linkState('ready');
    expect(ready).toMatchObject({ number: '+447700900999', token: session.fence.token });
    expect(await sessionKept(session)).toBe(true);
    const statuses = (await session.links.history()).map((state) => state.status).reverse();
    expect(statuses).toEqual(['starting', 'waiting-for-qr', 'authenticated', 'ready']);
    expect(client.options.auth).toMatchObject({ kind: 'remote', backupSyncIntervalMs: 300_000 });
  });

  it('keeps the session in WHATSAPP_SESSION_DIR when it is set (LocalAuth)', async () => {
    const sessionDir = await mkdtemp(join(tmpdir(), 'switchboard-wa-session-'));
    try {
      const session = await linked({ sessionDir });
      expect(session.fake.latest().options.auth).toEqual({ kind: 'local', sessionDir });
      expect(await readdir(join(sessionDir, 'session'))).toEqual(['fake-session']);
      expect(await sessionKept(session)).toBe(false);
    } finally {
      await rm(sessionDir, { recursive: true, force: true });
    }
  });
});

describe('messages', () => {
  it('turns a person\'s message into an event: number, profile name, text, time', async () => {
    const session = await linked();
    const message = webMessage('text-message');
    const [event] = await takenOf(session, message);
    expect(event).toEqual({
      type: 'whatsapp',
      via: 'web',
      messageId: message.id._serialized,
      from: '+447700900123',
      profileName: 'Ada',
      text: 'Hello! Can you find me a flight to Lisbon on Friday?',
      attachments: [],
      notes: [],
      receivedAt: new Date(message.timestamp * 1000).toISOString(),
    });
  });

  it('skips the account\'s own messages, status updates and notifications', async () => {
    const session = await linked();
    const own = webMessage('text-message', { fromMe: true, body: 'sent from the phone' });
    const status = webMessage('text-message', { from: 'status@broadcast', isStatus: true });
    const notice = webMessage('text-message', { type: 'e2e_notification', body: '' });
    expect(await takenOf(session, own, status, notice)).toEqual([]);
  });

  it('in groups takes only messages that mention the bot or quote it (groups: mentions)', async () => {
    const session = await linked();
    const unaddressed = webMessage('group-mention', { mentionedIds: [], body: 'anyone around?' });
    const mention = webMessage('group-mention');
    const ownMessage = messageFixture('text-message');
    const quoting = webMessage('group-mention', { mentionedIds: [], body: 'and the return?', hasQuotedMsg: true, quoted: { ...ownMessage, fromMe: true, id: { ...ownMessage.id, fromMe: true, _serialized: 'true_120363041234567890@g.us_3EB0BOTREPLY' } } });
    const quotingOther = webMessage('group-mention', { mentionedIds: [], hasQuotedMsg: true, quoted: ownMessage });
    const taken = await takenOf(session, unaddressed, mention, quoting, quotingOther);
    expect(taken.map((event) => event.messageId)).toEqual([mention.id._serialized, quoting.id._serialized]);
    expect(taken[0]).toMatchObject({ from: '+447700900456', profileName: 'Grace', group: { id: '120363041234567890@g.us', name: 'Trip to Lisbon' } });
    expect(taken[1]?.quotedId).toBe('true_120363041234567890@g.us_3EB0BOTREPLY');
  });

  it('takes a mention of the bot by its hidden-number id, and a sender known only by one', async () => {
    const fake = (await import('../fakes/fake-wwebjs.ts')).createFakeWwebjs();
    fake.world.lids.set('98765432109876@lid', '447700900999@c.us');
    fake.world.lids.set('12345678901234@lid', '447700900456@c.us');
    const session = await linked({ fake });
    const message = webMessage('group-mention', { author: '12345678901234@lid', mentionedIds: ['98765432109876@lid'] });
    const [event] = await takenOf(session, message);
    expect(event?.from).toBe('+447700900456');
  });

  it('takes every group message with groups: all, none with groups: off', async () => {
    const all = await linked({ groups: 'all' });
    expect(await takenOf(all, webMessage('group-mention', { mentionedIds: [] }))).toHaveLength(1);
    const off = await start(await connect(), `${prefix()}:off`, { groups: 'off' });
    await off.link();
    expect(await takenOf(off, webMessage('group-mention'))).toEqual([]);
  });

  it('keeps a picture as an artifact, a voice note as audio, and says what could not be kept', async () => {
    const session = await linked({ extra: { maxMediaBytes: 40 } });
    const picture = webMessage('image-message');
    const voice = webMessage('voice-note');
    const gone = webMessage('image-message', { media: null, body: '' });
    const big = webMessage('image-message', { media: { mimetype: 'video/mp4', data: Buffer.alloc(64).toString('base64'), filename: 'clip.mp4' }, type: 'video', body: '' });
    const [pictureEvent, voiceEvent, goneEvent, bigEvent] = await takenOf(session, picture, voice, gone, big);

    expect(pictureEvent?.text).toBe('My boarding pass');
    expect(pictureEvent?.attachments).toEqual([expect.objectContaining({ name: 'picture.jpeg', mimeType: 'image/jpeg', sizeBytes: 22 })]);
    const kept = await session.artifacts.get(pictureEvent?.attachments[0]?.artifactId ?? '');
    expect(kept?.bytes.equals(Buffer.from(messageFixture('image-message').media?.data ?? '', 'base64'))).toBe(true);

    expect(voiceEvent?.attachments).toEqual([expect.objectContaining({ name: 'voice-note.ogg', mimeType: 'audio/ogg' })]);
    expect(goneEvent?.attachments).toEqual([]);
    expect(goneEvent?.notes).toEqual(['(A picture was sent, but WhatsApp no longer had it to download.)']);
    expect(bigEvent?.notes[0]).toMatch(/^\(A video of 0\.0 MB was sent; it was too large to keep/);
  });

  it('tries an intake that rejects again, and takes the message once it accepts', async () => {
    const session = await linked();
    session.intake.failNext = 2;
    const message = webMessage('text-message');
    session.fake.latest().receive(message);
    await waitFor(() => session.intake.events.length === 1, 'the message taken');
    expect(session.intake.attempts).toBe(3);
    expect(session.intake.events[0]?.messageId).toBe(message.id._serialized);
  });
});

describe('a session that drops', () => {
  it('on disconnect records the alert, then starts a new client after the backoff that resumes without a QR code', async () => {
    const session = await linked();
    const first = session.fake.latest();
    first.disconnect('CONFLICT');
    const dropped = await session.linkState('disconnected');
    expect(dropped.detail).toBe('CONFLICT');
    expect(dropped.alert).toMatch(/dropped \(CONFLICT\); a new session starts in 0\.\d s/);
    expect(dropped.number).toBe('+447700900999');
    expect(first.state).toBe('destroyed');

    await waitFor(() => session.fake.clients.length === 2, 'a new client');
    await session.linkState('ready');
    expect(session.fake.latest().qrCodes).toEqual([]);
    const received = webMessage('text-message');
    expect((await takenOf(session, received)).map((event) => event.messageId)).toEqual([received.id._serialized]);
  });

  it('after a log-out on the phone clears the kept session and shows a new QR code', async () => {
    const session = await linked();
    session.fake.latest().disconnect('LOGOUT');
    const out = await session.linkState('logged-out');
    expect(out.alert).toMatch(/logged this linked device out.*cleared.*scan its QR code/);
    const waiting = await session.linkState('waiting-for-qr');
    expect(waiting.qr).toBe(session.fake.latest().qrCodes[0]);
    expect(await sessionKept(session)).toBe(false);
    await session.fake.latest().scan();
    await session.linkState('ready');
  });

  it('when the kept session is refused, says so, clears it and shows a new QR code', async () => {
    const session = await linked();
    session.fake.world.refuseSessionWith = 'Unable to log in. Are the session details valid?';
    session.fake.latest().disconnect('UNPAIRED');
    const refused = await session.linkState('auth-failed');
    expect(refused.alert).toMatch(/WhatsApp refused the kept session \(Unable to log in/);
    session.fake.world.refuseSessionWith = undefined;
    await session.linkState('waiting-for-qr');
    expect(await sessionKept(session)).toBe(false);
  });

  it('drops a kept session that no longer links once WhatsApp asks for a QR code, and keeps the new one', async () => {
    const session = await linked();
    session.fake.world.keptSessionLinks = false;
    session.fake.latest().disconnect('TIMEOUT');
    await waitFor(() => session.fake.clients.length === 2, 'a new client');
    await session.linkState('waiting-for-qr');
    await waitFor(async () => !(await sessionKept(session)), 'the stale session dropped');
    session.fake.world.keptSessionLinks = true;
    await session.fake.latest().scan();
    await session.linkState('ready');
    expect(await sessionKept(session)).toBe(true);
  });

  it('catches up on messages that came while it was offline, but not on old chats after a first link', async () => {
    const fake = (await import('../fakes/fake-wwebjs.ts')).createFakeWwebjs();
    const old = webMessage('text-message', { body: 'from last week', timestamp: Math.floor(Date.now() / 1000) - 7 * 86_400 });
    const chat = messageFixture('text-message').chat;
    fake.world.chats = [fakeChat(chat, () => [old])];
    const session = await linked({ fake });
    const marker = webMessage('text-message', { body: 'first' });
    await takenOf(session, marker);
    expect(session.intake.events.map((event) => event.messageId)).not.toContain(old.id._serialized);

    session.fake.latest().disconnect('TIMEOUT');
    const offline = webMessage('text-message', { body: 'sent while offline', timestamp: Math.floor(Date.now() / 1000) });
    const ownOffline = webMessage('text-message', { body: 'mine', fromMe: true, timestamp: Math.floor(Date.now() / 1000) });
    fake.world.chats = [fakeChat({ ...chat, unreadCount: 3 }, () => [old, offline, ownOffline])];
    await waitFor(() => session.intake.events.some((event) => event.messageId === offline.id._serialized), 'the offline message caught up');
    expect(session.intake.events.map((event) => event.messageId)).not.toContain(old.id._serialized);
    expect(session.intake.events.map((event) => event.messageId)).not.toContain(ownOffline.id._serialized);
  });
});

describe('stopping', () => {
  it('destroys the client on stop() and when the lease is lost', async () => {
    const session = await linked();
    await session.running.stop();
    expect(session.fake.latest().state).toBe('destroyed');

    const other = await start(await connect(), `${prefix()}:second`);
    await other.linkState('waiting-for-qr');
    const redis = await connect();
    await redis.set(other.fence.leaseKey, '999:intruder', 'PX', 5000); // the lease is taken: the next renewal aborts the fence
    await waitFor(() => other.fake.latest().state === 'destroyed', 'the client destroyed after the lease was lost', 10_000);
    await expect(Promise.race([other.running.closed, new Promise((resolve) => setTimeout(() => { resolve('open'); }, 200))])).resolves.not.toBe('open');
  });
});
