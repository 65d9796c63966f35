import { describe, expect, it } from 'vitest';
import { sampleInjection } from '../../../queues/queue-test-kit.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import type { Injection } from '../injection.ts';
import { createSessionStore, type SessionStore } from '../session/session-store.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import { conversationIndexLayout, type ConversationSettlement } from './conversation-index-layout.ts';
import { createConversationIndex } from './conversation-index.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const DAY = 86_400_000;
const T0 = Date.now() - DAY;

function recordFor(sessionId: string, first: Injection, turnId: string, at: number): TurnRecord {
  return {
    turnId, sessionId, actor: 'main', startedAt: new Date(at).toISOString(), deadlineAt: new Date(at + 60_000).toISOString(),
    step: 0, corrective: 0, handoffs: 0, given: 0, messages: [], status: 'running', emitted: [], dataEvents: [], replyTo: first.replyTo,
  };
}

function injection(id: string, address: string, sender: Partial<Injection['sender']> = {}): Injection {
  return sampleInjection(id, { channel: address.includes('@') ? 'email' : 'web', replyTo: { channel: address.includes('@') ? 'email' : 'web', address }, sender: { id: address, verified: true, ...sender } });
}

/** Starts a turn of `sessionId` at `at`; resolves to its record (not settled). */
async function start(store: SessionStore, sessionId: string, first: Injection, at: number): Promise<TurnRecord> {
  await store.accept(sessionId, first);
  const progress = await store.beginTurn(sessionId, (taken) => recordFor(sessionId, taken, `turn_${first.id}`, at), at);
  if (progress === undefined) throw new Error('no turn');
  return progress.record;
}

function settlement(record: TurnRecord, first: Injection, at: number, extra: Partial<ConversationSettlement> = {}): ConversationSettlement {
  return {
    sessionId: record.sessionId, turnId: record.turnId, at, state: 'settled', actor: 'main', channel: first.replyTo.channel, address: first.replyTo.address,
    senderId: first.sender.id, ...(first.sender.personId === undefined ? {} : { personId: first.sender.personId }),
    tokens: 100, costMicros: 2500, lastText: `answer to ${first.id}`, ...extra,
  };
}

describe('conversation index', () => {
  it('records a conversation when its first turn starts and sums what each settled turn spent', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const index = createConversationIndex({ redis, prefix: prefix() });
    const first = injection('m1', 'Ada@Example.com', { personId: 'ada' });
    const record = await start(store, 's1', first, T0);
    expect(await index.get('s1')).toMatchObject({ sessionId: 's1', channel: 'email', address: 'Ada@Example.com', senderId: 'Ada@Example.com', personId: 'ada', state: 'in-progress', firstAt: T0, turns: 0 });
    await store.finishTurn(record, [], settlement(record, first, T0 + 10));
    const second = injection('m2', 'Ada@Example.com', { personId: 'ada' });
    const next = await start(store, 's1', second, T0 + 100);
    expect((await index.get('s1'))?.state).toBe('in-progress');
    await store.finishTurn(next, [], settlement(next, second, T0 + 120, { state: 'failed', tokens: 50, costMicros: 500 }));
    expect(await index.get('s1')).toMatchObject({ state: 'failed', turns: 2, tokens: 150, costUsd: 0.003, firstAt: T0, lastAt: T0 + 120, lastText: 'answer to m2' });
  });

  it('finds conversations by address (any case for email), person, channel and state, newest first', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const index = createConversationIndex({ redis, prefix: prefix() });
    const ada = injection('a1', 'ada@example.com', { personId: 'ada' });
    await store.finishTurn(await start(store, 'sa', ada, T0), [], settlement(await recordOf(store, 'sa'), ada, T0 + 5));
    const web = injection('w1', 'conv-W');
    const running = await start(store, 'sw', web, T0 + 50);
    const grace = injection('g1', 'grace@example.com');
    const graceTurn = await start(store, 'sg', grace, T0 + 60);
    await store.finishTurn(graceTurn, [], settlement(graceTurn, grace, T0 + 70));
    await index.markDeliveryFailed('sg', graceTurn.turnId);

    expect((await index.search({ address: 'ADA@example.com' })).items.map((item) => item.sessionId)).toEqual(['sa']);
    expect((await index.search({ address: 'conv-w' })).items).toEqual([]);
    expect((await index.search({ person: 'ada' })).items.map((item) => item.sessionId)).toEqual(['sa']);
    expect((await index.search({ person: 'Grace@example.com' })).items.map((item) => item.sessionId)).toEqual(['sg']);
    expect((await index.search({ state: 'in-progress' })).items.map((item) => item.sessionId)).toEqual(['sw']);
    expect((await index.search({ state: 'failed' })).items.map((item) => item.sessionId)).toEqual(['sg']);
    expect((await index.search({ channel: 'email' })).items.map((item) => item.sessionId)).toEqual(['sg', 'sa']);
    expect((await index.search({ from: T0 + 40, to: T0 + 55 })).items.map((item) => item.sessionId)).toEqual(['sw']);
    await index.markSuspended('sw', T0 + 80);
    expect((await index.get('sw'))?.state).toBe('suspended');
    await index.markResumed('sw', T0 + 90);
    expect((await index.get('sw'))?.state).toBe('in-progress');
    await store.finishTurn(running, [], settlement(running, web, T0 + 95));
    expect((await index.get('sw'))?.state).toBe('settled');
  });

  it('pages with a cursor, also through conversations that started at the same moment', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const index = createConversationIndex({ redis, prefix: prefix() });
    for (let n = 0; n < 7; n += 1) await start(store, `p${String(n)}`, injection(`p${String(n)}`, `conv-${String(n)}`), T0 + Math.floor(n / 3));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await index.search({ limit: 2, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.items.map((item) => item.sessionId));
      cursor = page.next;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    await expect(index.search({ cursor: 'not-ours' })).rejects.toThrow(/cursor/);
  });

  it('keeps at most maxConversations, and drops conversations idle for 30 days', async () => {
    const redis = await connect();
    const layout = conversationIndexLayout(prefix(), 3);
    const store = createSessionStore({ redis, prefix: prefix(), conversations: layout });
    const index = createConversationIndex({ redis, prefix: prefix(), maxConversations: 3 });
    await start(store, 'old', injection('o1', 'conv-old'), Date.now() - 31 * DAY);
    for (let n = 0; n < 4; n += 1) await start(store, `b${String(n)}`, injection(`b${String(n)}`, `conv-b${String(n)}`), T0 + n);
    expect(await redis.zcard(layout.indexKey)).toBe(3);
    expect(await redis.hlen(layout.summaryKey)).toBe(3);
    expect((await index.search({})).items.map((item) => item.sessionId)).toEqual(['b3', 'b2', 'b1']);
  });

  it('costs a known conversation one command when a turn starts, and two when it settles', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const first = injection('c1', 'conv-c');
    await store.finishTurn(await start(store, 'sc', first, T0), [], settlement(await recordOf(store, 'sc'), first, T0 + 1));
    // MONITOR shows the commands scripts run; those on the index's keys are the index's cost.
    const monitor = await (await connect()).monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[1]?.startsWith(`${prefix()}:conv:`) === true || args[1] === `${prefix()}:sentinel`) seen.push(args[0]?.toLowerCase() ?? '');
    });
    const second = injection('c2', 'conv-c');
    const record = await start(store, 'sc', second, T0 + 10);
    await store.finishTurn(record, [], settlement(record, second, T0 + 11));
    await redis.get(`${prefix()}:sentinel`);
    await waitFor(() => seen.includes('get'), 'the sentinel in the MONITOR feed');
    monitor.disconnect();
    expect(seen).toEqual(['zadd', 'hget', 'hset', 'get']);
  });

  it('keeps no index when the session store is told not to', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix(), conversations: false });
    const first = injection('n1', 'conv-n');
    const record = await start(store, 'sn', first, T0);
    await store.finishTurn(record, [], settlement(record, first, T0 + 1));
    expect(await redis.exists(`${prefix()}:conv:idx`, `${prefix()}:conv:sum`)).toBe(0);
  });
});

async function recordOf(store: SessionStore, sessionId: string): Promise<TurnRecord> {
  const progress = await store.beginTurn(sessionId, () => { throw new Error('no new turn expected'); });
  if (progress === undefined) throw new Error('no turn');
  return progress.record;
}
