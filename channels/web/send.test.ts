import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { useKeyPrefix, useRedis } from '../../test/support/redis.ts';
import { useRedisClients } from '../../test/support/redis-clients.ts';
import { createWebEventStore, type WebEventStore } from './stream/event-store.ts';
import { createWebSender, type WebDelivery } from './send.ts';
import { createEchoOrder } from './echo-order.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const stores: WebEventStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function makeStore(): Promise<WebEventStore> {
  const store = createWebEventStore({ redis: await connect(), keyPrefix: prefix() });
  stores.push(store);
  return store;
}

function delivery(payload: Record<string, unknown>, overrides: Partial<WebDelivery> = {}): WebDelivery {
  return { channel: 'web', destination: { channel: 'web', address: 'conv-1' }, idempotencyKey: 'turn-1:0', payload, ...overrides };
}

const responsePart = {
  type: 'part',
  turnId: 'turn-1',
  partId: '0',
  turnState: 'complete',
  actor: 'concierge',
  part: { text: 'Two direct options.', metadata: { partType: 'response' } },
};

async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof SwitchboardError)) throw new Error(`Expected a SwitchboardError, got ${String(error)}`);
  return error;
}

describe('createWebSender', () => {
  it('appends the payload to the conversation, once per idempotency key', async () => {
    const store = await makeStore();
    const sender = createWebSender(store);
    const first = await sender.send(delivery(responsePart));
    const again = await sender.send(delivery(responsePart));
    expect(again.providerId).toBe(first.providerId);
    expect(await store.readAfter('conv-1', '0', 10)).toEqual([{ id: first.providerId, event: responsePart }]);
  });

  it('holds a delivery to a conversation owed an echo until the echo was sent, then stores it after the echo', async () => {
    const store = await makeStore();
    const echoes = createEchoOrder();
    const sender = createWebSender(store, { echoes });
    const paid = echoes.owe('conv-1');
    const sent = sender.send(delivery(responsePart));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.readAfter('conv-1', '0', 10)).toEqual([]);
    const echo = { type: 'message', messageId: 'web:conv-1:m1', text: 'Fly me to Lisbon.', sender: 'web:b_1' } as const;
    const echoed = store.append('conv-1', echo, 'echo:web:conv-1:m1');
    paid();
    await Promise.all([echoed, sent]);
    expect((await store.readAfter('conv-1', '0', 10)).map(({ event }) => event.type)).toEqual(['message', 'part']);
    // Another conversation owes nothing: its deliveries go at once.
    await sender.send(delivery(responsePart, { destination: { channel: 'web', address: 'conv-2' } }));
  });

  it.each([
    ['no type', { turnId: 't' }],
    ['an unknown type', { type: 'surprise', turnId: 't' }],
    ['a part without partType', { ...responsePart, part: { text: 'x', metadata: {} } }],
    ['a part with non-string text', { ...responsePart, part: { text: 42, metadata: { partType: 'response' } } }],
    ['a turn without turnState', { type: 'turn', turnId: 't' }],
    ['a message without text', { type: 'message', messageId: 'm', sender: 's' }],
  ])('refuses a payload with %s as a permanent failure', async (_label, payload) => {
    const store = await makeStore();
    const error = await failure(createWebSender(store).send(delivery(payload)));
    expect(error.code).toBe('delivery.failed');
    expect(error.details['permanent']).toBe(true);
    expect(error.retryable).toBe(false);
    expect(await store.readAfter('conv-1', '0', 10)).toEqual([]);
  });

  it('refuses a bad address or a delivery for another channel as permanent', async () => {
    const sender = createWebSender(await makeStore());
    const badAddress = await failure(sender.send(delivery(responsePart, { destination: { channel: 'web', address: '../etc' } })));
    expect(badAddress.details['permanent']).toBe(true);
    const otherChannel = await failure(sender.send(delivery(responsePart, { destination: { channel: 'sms', address: 'conv-1' } })));
    expect(otherChannel.details['permanent']).toBe(true);
  });

  it('reports a store failure as retryable', async () => {
    const broken: WebEventStore = {
      append: () => Promise.reject(new Error('connection refused')),
      readAfter: () => Promise.resolve([]),
      subscribe: () => Promise.resolve(() => Promise.resolve()),
      close: () => Promise.resolve(),
    };
    const error = await failure(createWebSender(broken).send(delivery(responsePart)));
    expect(error.code).toBe('delivery.failed');
    expect(error.retryable).toBe(true);
    expect(error.details['permanent']).toBe(false);
    expect(error.cause).toBeInstanceOf(Error);
  });
});
