import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createDeliveredSurfaces, surfaceIdOf, type DeliveredSurfaces } from './delivered-surfaces.ts';
import { createWebSender, type WebDelivery } from './send.ts';
import type { WebChatEvent } from './stream/chat-event.ts';
import { createWebEventStore } from './stream/event-store.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

function surfacePart(data: Record<string, unknown>): WebChatEvent {
  return { type: 'part', turnId: 't1', partId: 't1.0', turnState: 'complete', part: { data, metadata: { partType: 'a2ui-surface' } } };
}

describe('createDeliveredSurfaces', () => {
  it('knows a surface only in the conversation it was delivered to, and keeps it for ttlMs', async () => {
    const redis = await connect();
    const surfaces = createDeliveredSurfaces({ redis, prefix: prefix(), ttlMs: 60_000 });
    await surfaces.record('c1', 'flight-results');
    expect(await surfaces.has('c1', 'flight-results')).toBe(true);
    expect(await surfaces.has('c1', 'hotel-results')).toBe(false);
    expect(await surfaces.has('c2', 'flight-results')).toBe(false);
    const ttl = await redis.pttl(`${prefix()}:web-surfaces:c1`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('surfaceIdOf', () => {
  it.each([
    ['createSurface', { createSurface: { surfaceId: 'a' }, updateComponents: { surfaceId: 'b' } }, 'a'],
    ['updateComponents alone', { updateComponents: { surfaceId: 'b' } }, 'b'],
    ['updateDataModel alone', { updateDataModel: { surfaceId: 'c' } }, 'c'],
    ['no surface id', { createSurface: { surfaceId: '' } }, undefined],
  ])('reads the surface id of a part with %s', (_label, data, expected) => {
    expect(surfaceIdOf(surfacePart(data))).toBe(expected);
  });

  it('reads nothing from other parts and events', () => {
    const response: WebChatEvent = { type: 'part', turnId: 't1', partId: 't1.0', turnState: 'complete', part: { data: { createSurface: { surfaceId: 'x' } }, metadata: { partType: 'domain-data' } } };
    expect(surfaceIdOf(response)).toBeUndefined();
    expect(surfaceIdOf({ type: 'turn', turnId: 't1', turnState: 'complete' })).toBeUndefined();
  });
});

describe('the web sender with delivered surfaces', () => {
  const delivery = (payload: WebChatEvent): WebDelivery => ({
    channel: 'web',
    destination: { channel: 'web', address: 'c1' },
    idempotencyKey: 't1:0',
    payload: { ...payload },
  });

  it('records the surface of an a2ui-surface part it delivers', async () => {
    const redis = await connect();
    const store = createWebEventStore({ redis, keyPrefix: prefix() });
    const surfaces = createDeliveredSurfaces({ redis, prefix: prefix() });
    await createWebSender(store, { surfaces }).send(delivery(surfacePart({ createSurface: { surfaceId: 'flight-results' } })));
    expect(await surfaces.has('c1', 'flight-results')).toBe(true);
    expect(await store.readAfter('c1', '0', 10)).toHaveLength(1);
  });

  it('fails the delivery, retryably and with nothing stored, when the surface cannot be recorded', async () => {
    const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
    const broken: DeliveredSurfaces = { record: () => Promise.reject(new Error('Connection is closed.')), has: () => Promise.resolve(false) };
    const failure: unknown = await createWebSender(store, { surfaces: broken })
      .send(delivery(surfacePart({ createSurface: { surfaceId: 'flight-results' } })))
      .then(() => undefined, (thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(SwitchboardError);
    expect(failure).toMatchObject({ code: 'delivery.failed', retryable: true, details: { permanent: false } });
    expect(await store.readAfter('c1', '0', 10)).toEqual([]);
  });
});
