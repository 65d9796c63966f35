import { describe, expect, it } from 'vitest';
import { sampleInjection } from '../../../queues/queue-test-kit.ts';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import type { Injection } from '../injection.ts';
import type { ModelMessage } from '../model/model-types.ts';
import { createEventLog, eventLogKey, type BatchEventLog, type StoredEventLogEntry } from './event-log.ts';
import type { HeldLock } from './held-lock.ts';
import { createSessionStore, type SessionStore, type TurnInProgress } from './session-store.ts';
import type { TurnRecord } from './turn-record.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

const say = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });

function recordFor(sessionId: string, first: Injection, turnId: string): TurnRecord {
  return {
    turnId, sessionId, actor: 'main', startedAt: new Date(0).toISOString(), deadlineAt: new Date(60_000).toISOString(),
    step: 0, corrective: 0, handoffs: 0, given: 0, messages: [], status: 'running', emitted: [], dataEvents: [], replyTo: first.replyTo,
  };
}

/** Runs one turn of `sessionId` on `store` that appends `text` to the history. */
async function oneTurn(store: SessionStore, sessionId: string, id: string, text: string): Promise<readonly ModelMessage[]> {
  await store.accept(sessionId, sampleInjection(id));
  const progress = await store.beginTurn(sessionId, (first) => recordFor(sessionId, first, `turn_${id}`));
  if (progress === undefined) throw new Error('no turn');
  await store.finishTurn(progress.record, [...progress.history, say(text)]);
  return progress.history;
}

describe('session store history', () => {
  it('keeps the history as a list of messages with the id of the turn that wrote it', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    await oneTurn(store, 's1', 'm1', 'hello');
    await oneTurn(store, 's1', 'm1b', 'again');
    expect(await redis.lrange(`${prefix()}:s:s1:hist`, 0, -1)).toEqual([JSON.stringify(say('hello')), JSON.stringify(say('again'))]);
    expect(await redis.get(`${prefix()}:s:s1:histv`)).toBe('turn_m1b');
    expect(await redis.ttl(`${prefix()}:s:s1:hist`)).toBeGreaterThan(89 * 24 * 3600);
    expect(await redis.ttl(`${prefix()}:s:s1:histv`)).toBeGreaterThan(89 * 24 * 3600);
    // Another process (nothing kept in memory) reads it back.
    const fresh = createSessionStore({ redis, prefix: prefix() });
    expect(await oneTurn(fresh, 's1', 'm1c', 'third')).toEqual([say('hello'), say('again')]);
  });

  it('reads both single-string forms earlier versions wrote, and stores them as a list from the next turn', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    await redis.set(`${prefix()}:s:s2:history`, JSON.stringify([say('bare JSON')]));
    await redis.set(`${prefix()}:s:s8:history`, `turn_old\n${JSON.stringify([say('versioned')])}`);
    expect(await oneTurn(store, 's2', 'm2', 'next')).toEqual([say('bare JSON')]);
    expect(await oneTurn(store, 's8', 'm8', 'next')).toEqual([say('versioned')]);
    expect(await redis.exists(`${prefix()}:s:s2:history`, `${prefix()}:s:s8:history`)).toBe(0);
    expect(await redis.lrange(`${prefix()}:s:s8:hist`, 0, -1)).toEqual([JSON.stringify(say('versioned')), JSON.stringify(say('next'))]);
    expect(await oneTurn(createSessionStore({ redis, prefix: prefix() }), 's8', 'm8b', 'more')).toEqual([say('versioned'), say('next')]);
  });

  it('sends only what a turn changed: appended messages, dropped ones and a rewritten first one', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const monitor = await connect();
    const written: string[][] = [];
    // MONITOR shows every command the store sends, Lua script arguments included.
    await monitor.monitor().then((feed) => feed.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'evalsha' || args[0]?.toLowerCase() === 'eval') written.push(args);
    }));
    const long = say('x'.repeat(5000));
    await oneTurn(store, 's9', 'd1', 'one');
    await oneTurn(store, 's9', 'd2', 'two');
    await store.accept('s9', sampleInjection('d3'));
    const third = await store.beginTurn('s9', (injection) => recordFor('s9', injection, 'turn_d3'));
    if (third === undefined) throw new Error('no turn');
    const [, second] = third.history;
    written.length = 0;
    // The runner dropped the first message, rewrote the second and added two.
    await store.finishTurn(third.record, [{ ...second, content: [] } as ModelMessage, long, say('four')]);
    await waitFor(() => written.some((args) => args.includes('turn_d3')), 'the finish script shows in the MONITOR feed');
    const finish = written.find((args) => args.includes('turn_d3')) ?? [];
    expect(finish.join(' ')).not.toContain('"one"');
    expect(finish.filter((arg) => arg.length >= 5000)).toHaveLength(1);
    expect(await redis.lrange(`${prefix()}:s:s9:hist`, 0, -1)).toEqual([JSON.stringify({ role: 'user', content: [] }), JSON.stringify(long), JSON.stringify(say('four'))]);
    monitor.disconnect();
    const next = await createSessionStore({ redis, prefix: prefix() }).beginTurn('s9', () => recordFor('s9', sampleInjection('d4'), 'turn_d4'));
    expect(next).toBeUndefined();
  });

  it('stores a history longer than Lua can unpack into one RPUSH (it pushes 1,000 at a time)', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix(), historyCacheSize: 0 });
    await store.accept('s11', sampleInjection('f1'));
    const progress = await store.beginTurn('s11', (injection) => recordFor('s11', injection, 'turn_f1'));
    if (progress === undefined) throw new Error('no turn');
    const long = Array.from({ length: 9000 }, (_, index) => say(`m${String(index)}`));
    await store.finishTurn(progress.record, long);
    expect(await redis.llen(`${prefix()}:s:s11:hist`)).toBe(9000);
    expect(await oneTurn(createSessionStore({ redis, prefix: prefix() }), 's11', 'f2', 'next')).toEqual(long);
  });

  it('stores the whole history when another process wrote it since the turn began', async () => {
    const redis = await connect();
    const here = createSessionStore({ redis, prefix: prefix() });
    const elsewhere = createSessionStore({ redis, prefix: prefix() });
    await oneTurn(here, 's10', 'e1', 'one');
    await here.accept('s10', sampleInjection('e2'));
    const progress = await here.beginTurn('s10', (injection) => recordFor('s10', injection, 'turn_e2'));
    if (progress === undefined) throw new Error('no turn');
    // A process that lost track (a lease taken over) writes a history meanwhile.
    await redis.set(`${prefix()}:s:s10:histv`, 'turn_other');
    await redis.rpush(`${prefix()}:s:s10:hist`, JSON.stringify(say('other')));
    expect(await here.finishTurn(progress.record, [...progress.history, say('two')])).toBe(0);
    expect(await redis.lrange(`${prefix()}:s:s10:hist`, 0, -1)).toEqual([JSON.stringify(say('one')), JSON.stringify(say('two'))]);
    expect(await oneTurn(elsewhere, 's10', 'e3', 'three')).toEqual([say('one'), say('two')]);
  });

  it('gives the next turn in this process the history it wrote, and a newer one written elsewhere', async () => {
    const here = createSessionStore({ redis: await connect(), prefix: prefix() });
    const elsewhere = createSessionStore({ redis: await connect(), prefix: prefix() });
    await oneTurn(here, 's3', 'a1', 'one');
    const second = await oneTurn(here, 's3', 'a2', 'two');
    expect(second).toEqual([say('one')]);
    // Another process runs a turn: this process's copy is out of date and must not be used.
    expect(await oneTurn(elsewhere, 's3', 'a3', 'three')).toEqual([say('one'), say('two')]);
    expect(await oneTurn(here, 's3', 'a4', 'four')).toEqual([say('one'), say('two'), say('three')]);
  });

  it('does not read or parse the history again for the next turn in the process that wrote it', async () => {
    const store = createSessionStore({ redis: await connect(), prefix: prefix() });
    await store.accept('s5', sampleInjection('c1'));
    const first = await store.beginTurn('s5', (injection) => recordFor('s5', injection, 'turn_c1'));
    if (first === undefined) throw new Error('no turn');
    const written = [say('kept')];
    await store.finishTurn(first.record, written);
    await store.accept('s5', sampleInjection('c2'));
    const second = await store.beginTurn('s5', (injection) => recordFor('s5', injection, 'turn_c2'));
    expect(second?.history).toBe(written);
    expect(second?.historyChars).toBe(JSON.stringify(written).length);
  });

  it('keeps only the latest sessions, and reads an evicted one again', async () => {
    const store = createSessionStore({ redis: await connect(), prefix: prefix(), historyCacheSize: 1 });
    const written = new Map<string, ModelMessage[]>();
    for (const sessionId of ['s6', 's7']) {
      await store.accept(sessionId, sampleInjection(`${sessionId}-1`));
      const progress = await store.beginTurn(sessionId, (injection) => recordFor(sessionId, injection, `turn_${sessionId}_1`));
      if (progress === undefined) throw new Error('no turn');
      written.set(sessionId, [say(sessionId)]);
      await store.finishTurn(progress.record, written.get(sessionId) ?? []);
    }
    const next = async (sessionId: string): Promise<readonly ModelMessage[] | undefined> => {
      await store.accept(sessionId, sampleInjection(`${sessionId}-2`));
      return (await store.beginTurn(sessionId, (injection) => recordFor(sessionId, injection, `turn_${sessionId}_2`)))?.history;
    };
    // s7 was written last and is kept; s6 was pushed out by it and is read from Redis.
    expect(await next('s7')).toBe(written.get('s7'));
    const s6 = await next('s6');
    expect(s6).not.toBe(written.get('s6'));
    expect(s6).toEqual([say('s6')]);
  });

  it('reads the history again when nothing is kept in the process', async () => {
    const store = createSessionStore({ redis: await connect(), prefix: prefix(), historyCacheSize: 0 });
    await oneTurn(store, 's4', 'b1', 'one');
    expect(await oneTurn(store, 's4', 'b2', 'two')).toEqual([say('one')]);
  });
});

describe('a turn\'s begin', () => {
  it('says whether the session\'s notes hash has entries, in the begin\'s own script, when given its key', async () => {
    const redis = await connect();
    const notesKey = (sessionId: string): string => `${prefix()}:notes:${sessionId}`;
    const store = createSessionStore({ redis, prefix: prefix(), notesKey });
    await store.accept('sn', sampleInjection('n1'));
    const quiet = await store.beginTurn('sn', (first) => recordFor('sn', first, 'turn_n1'));
    expect(quiet?.notesWaiting).toBe(false);
    await store.finishTurn(quiet?.record ?? recordFor('sn', sampleInjection('n1'), 'turn_n1'), []);
    await redis.hset(notesKey('sn'), 'some-key', '{}');
    await store.accept('sn', sampleInjection('n2'));
    expect((await store.beginTurn('sn', (first) => recordFor('sn', first, 'turn_n2')))?.notesWaiting).toBe(true);
    // Without a notes key, the begin says nothing either way.
    const plain = createSessionStore({ redis, prefix: prefix() });
    await plain.accept('sp', sampleInjection('p1'));
    const begun = await plain.beginTurn('sp', (first) => recordFor('sp', first, 'turn_p1'));
    expect(begun?.inbox).toHaveLength(1);
    expect(begun).not.toHaveProperty('notesWaiting');
  });

  it('with a lock, does nothing unless the lock holds its token, and then begins as without', async () => {
    const redis = await connect();
    const notesKey = (sessionId: string): string => `${prefix()}:notes:${sessionId}`;
    const store = createSessionStore({ redis, prefix: prefix(), notesKey });
    await store.accept('sl', sampleInjection('l1'));
    const lock = { key: `${prefix()}:session-lock:sl`, token: 'ours' };
    expect(await store.beginTurn('sl', (first) => recordFor('sl', first, 'turn_l1'), Date.now(), lock)).toBeUndefined();
    await redis.set(lock.key, 'theirs');
    expect(await store.beginTurn('sl', (first) => recordFor('sl', first, 'turn_l1'), Date.now(), lock)).toBeUndefined();
    // Nothing moved: the message still waits in the mailbox.
    expect(await store.pendingCount('sl')).toBe(1);
    await redis.set(lock.key, 'ours');
    await redis.hset(notesKey('sl'), 'some-key', '{}');
    const begun = await store.beginTurn('sl', (first) => recordFor('sl', first, 'turn_l1'), Date.now(), lock);
    expect(begun?.inbox.map((injection) => injection.id)).toEqual([sampleInjection('l1').id]);
    expect(begun?.notesWaiting).toBe(true);
    await begun?.saved;
    expect(await store.pendingCount('sl')).toBe(0);
    // Without a notes key, the lock key is not taken for one.
    const plain = createSessionStore({ redis, prefix: prefix() });
    await plain.accept('sm', sampleInjection('m1'));
    await redis.set(`${prefix()}:session-lock:sm`, 'ours');
    const unnoted = await plain.beginTurn('sm', (first) => recordFor('sm', first, 'turn_m1'), Date.now(), { key: `${prefix()}:session-lock:sm`, token: 'ours' });
    expect(unnoted?.inbox).toHaveLength(1);
    expect(unnoted).not.toHaveProperty('notesWaiting');
  });
});

describe('a begin that follows the accept of its message', () => {
  it('saves the new turn\'s record in its own script when the oldest waiting message is one it accepted, and begins as before otherwise', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const turnKey = (sessionId: string): string => `${prefix()}:s:${sessionId}:turn`;
    const made: string[] = [];
    const create = (sessionId: string) => (first: Injection): TurnRecord => { made.push(first.id); return recordFor(sessionId, first, `turn_${first.id}`); };
    const begin = async (sessionId: string): Promise<TurnInProgress | undefined> => {
      const begun = await store.beginTurn(sessionId, create(sessionId));
      await begun?.saved;
      expect(JSON.parse((await redis.get(turnKey(sessionId))) ?? 'null')).toEqual(begun?.record);
      if (begun !== undefined) await store.finishTurn(begun.record, []);
      return begun;
    };
    await store.acceptWhile('sa', sampleInjection('a1'), { key: await conditionKey(redis, 'sa'), ttlMs: 60_000 });
    // A repeat stores nothing more; the two accepted next wait behind it.
    await store.accept('sa', sampleInjection('a1'));
    await store.accept('sa', sampleInjection('a2'));
    await store.accept('sa', sampleInjection('a3'));
    const begins = [await begin('sa'), await begin('sa'), await begin('sa')];
    expect(begins.map((begun) => [begun?.record.turnId, begun?.resumed, begun !== undefined && 'saved' in begun])).toEqual([
      ['turn_a1', false, false],
      ['turn_a2', false, false],
      ['turn_a3', false, false],
    ]);
    expect(made).toEqual(['a1', 'a2', 'a3']);

    // A message another process accepted is older: its turn is saved as before, then this one's by its begin.
    await redis.rpush(`${prefix()}:s:sb:pending`, JSON.stringify(sampleInjection('b0')));
    await store.accept('sb', sampleInjection('b1'));
    made.length = 0;
    const older = await begin('sb');
    expect([older?.record.turnId, older?.saved === undefined]).toEqual(['turn_b0', false]);
    const next = await begin('sb');
    expect([next?.record.turnId, next?.saved === undefined]).toEqual(['turn_b1', true]);
    expect(made).toEqual(['b1', 'b0', 'b1']);
  });

  it('remembers nothing in a process that begins no turns', async () => {
    const redis = await connect();
    const web = createSessionStore({ redis, prefix: prefix(), beginsTurns: false });
    await web.accept('se', sampleInjection('e1'));
    const begun = await web.beginTurn('se', (first) => recordFor('se', first, `turn_${first.id}`));
    expect(begun?.saved).toBeDefined();
    await begun?.saved;
    expect(JSON.parse((await redis.get(`${prefix()}:s:se:turn`)) ?? 'null')).toEqual(begun?.record);
  });

  it('resumes a running turn rather than saving another over it', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const running = await startTurn(store, 'sd', 'd1');
    await store.accept('sd', sampleInjection('d2'));
    const begun = await store.beginTurn('sd', (first) => recordFor('sd', first, `turn_${first.id}`));
    expect(begun?.resumed).toBe(true);
    expect(begun?.record).toEqual(running);
    expect(JSON.parse((await redis.get(`${prefix()}:s:sd:turn`)) ?? 'null')).toEqual(running);
    expect(await store.pendingCount('sd')).toBe(1);
  });
});

/** A condition key that exists for a minute, for `acceptWhile`. */
async function conditionKey(redis: Awaited<ReturnType<typeof connect>>, sessionId: string): Promise<string> {
  const key = `${prefix()}:condition:${sessionId}`;
  await redis.set(key, '1', 'PX', 60_000);
  return key;
}

describe('a guarded accept', () => {
  it('stores the message unless its sender is blocked or has messages held, and drops a repeat', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const guard = { blockedKey: `${prefix()}:blocked`, blockedField: 'ada', heldKey: `${prefix()}:held:ada` };
    expect(await store.acceptUnless('sa', sampleInjection('a1'), guard)).toBe('accepted');
    expect(await store.acceptUnless('sa', sampleInjection('a1'), guard)).toBe('duplicate');
    await redis.hset(guard.blockedKey, 'bob', '{}');
    expect(await store.acceptUnless('sa', sampleInjection('a2'), guard)).toBe('accepted');
    await redis.hset(guard.blockedKey, 'ada', '{}');
    expect(await store.acceptUnless('sa', sampleInjection('a3'), guard)).toBe('guarded');
    await redis.hdel(guard.blockedKey, 'ada');
    await redis.rpush(guard.heldKey, '{}');
    expect(await store.acceptUnless('sa', sampleInjection('a4'), guard)).toBe('guarded');
    expect(await store.pendingCount('sa')).toBe(2);
    // Nothing guarded was remembered: once let in, the same message is stored.
    await redis.del(guard.heldKey);
    expect(await store.acceptUnless('sa', sampleInjection('a4'), guard)).toBe('accepted');
  });
});

describe('an accept with a condition', () => {
  it('stores the message only while the condition\'s key exists, renewing its expiry in the same script', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const condition = { key: `${prefix()}:web:sid:s1`, ttlMs: 600_000 };
    await redis.set(condition.key, '{}', 'PX', 5_000);
    expect(await store.acceptWhile('sc', sampleInjection('c1'), condition)).toBe('accepted');
    expect(await redis.pttl(condition.key)).toBeGreaterThan(500_000);
    expect(await store.acceptWhile('sc', sampleInjection('c1'), condition)).toBe('duplicate');
    await redis.del(condition.key);
    expect(await store.acceptWhile('sc', sampleInjection('c2'), condition)).toBe('lapsed');
    expect(await store.pendingCount('sc')).toBe(1);
    // Nothing of the lapsed message was remembered: with the key back, it is stored.
    await redis.set(condition.key, '{}');
    expect(await store.acceptWhile('sc', sampleInjection('c2'), condition)).toBe('accepted');
    expect(await store.pendingCount('sc')).toBe(2);
  });

  it('checks the condition before a guard, and the guard as a guarded accept does', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const condition = { key: `${prefix()}:web:sid:s2`, ttlMs: 600_000 };
    const guard = { blockedKey: `${prefix()}:blocked`, blockedField: 'ada', heldKey: `${prefix()}:held:ada` };
    await redis.set(condition.key, '{}');
    expect(await store.acceptWhile('sg', sampleInjection('g1'), condition, guard)).toBe('accepted');
    await redis.hset(guard.blockedKey, 'ada', '{}');
    expect(await store.acceptWhile('sg', sampleInjection('g2'), condition, guard)).toBe('guarded');
    await redis.del(condition.key);
    expect(await store.acceptWhile('sg', sampleInjection('g2'), condition, guard)).toBe('lapsed');
    expect(await store.pendingCount('sg')).toBe(1);
  });

  it('renews a condition on its own, false once its key is gone', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const condition = { key: `${prefix()}:web:sid:s3`, ttlMs: 600_000 };
    await redis.set(condition.key, '{}', 'PX', 5_000);
    expect(await store.renew(condition)).toBe(true);
    expect(await redis.pttl(condition.key)).toBeGreaterThan(500_000);
    await redis.del(condition.key);
    expect(await store.renew(condition)).toBe(false);
    expect(await redis.exists(condition.key)).toBe(0);
  });
});

describe('a finish that writes the turn\'s last log entry', () => {
  it('adds the entry in the clearing\'s script, archives it with its id, and sets the log\'s expiry when due', async () => {
    const { redis, store, log, archived, record } = await loggedTurn('sw1', 'w1');
    const entries = [{ type: 'delivery' as const, turnId: record.turnId, data: { key: 'k1' } }, { type: 'turn_settled' as const, turnId: record.turnId, actor: 'main', data: { turnState: 'complete' } }];
    expect(await store.finishTurn(record, [say('hi')], undefined, { logWrite: log.prepare('sw1', entries) })).toBe(0);
    expect(await redis.exists(`${prefix()}:s:sw1:turn`)).toBe(0);
    await expectLogged({ redis, log, archived }, 'sw1', entries);
    // A second write soon after does not set the expiry again.
    await redis.persist(eventLogKey(prefix(), 'sw1'));
    const next = await startTurn(store, 'sw1', 'w1b');
    await store.finishTurn(next, [say('hi'), say('again')], undefined, { logWrite: log.prepare('sw1', [{ type: 'turn_settled', turnId: next.turnId, data: {} }]) });
    expect(await redis.ttl(eventLogKey(prefix(), 'sw1'))).toBe(-1);
    expect((await log.read('sw1')).map((entry) => entry.type)).toEqual(['delivery', 'turn_settled', 'turn_settled']);
  });

  it('writes the entry once when the history changed meanwhile and the finish stores it whole', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const log = createEventLog({ redis, prefix: prefix() });
    await oneTurn(store, 'sw2', 'w2a', 'first');
    const record = await startTurn(store, 'sw2', 'w2');
    // Another process wrote the history since this turn read it.
    await redis.set(`${prefix()}:s:sw2:histv`, 'someone-else');
    const logWrite = log.prepare('sw2', [{ type: 'turn_settled', turnId: record.turnId, data: {} }]);
    expect(await store.finishTurn(record, [say('first'), say('mine')], undefined, { logWrite })).toBe(0);
    expect((await log.read('sw2')).map((entry) => entry.type)).toEqual(['turn_settled']);
    expect(await redis.lrange(`${prefix()}:s:sw2:hist`, 0, -1)).toEqual([say('first'), say('mine')].map((message) => JSON.stringify(message)));
  });

  it('lets the lock go in the same script as the log\'s write', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const log = createEventLog({ redis, prefix: prefix() });
    const record = await startTurn(store, 'sw3', 'w3');
    const lock = await heldLock(redis, 'sw3', 'tok-w3');
    const logWrite = log.prepare('sw3', [{ type: 'turn_settled', turnId: record.turnId, data: {} }]);
    expect(await store.finishTurn(record, [say('hi')], undefined, { logWrite, lock })).toBe(0);
    expect(await redis.exists(lock.key)).toBe(0);
    expect(lock.told()).toBe(true);
    expect((await log.read('sw3')).map((entry) => entry.type)).toEqual(['turn_settled']);
  });
});

describe('a save that writes the log\'s buffered entries', () => {
  it('sets the record and adds the entries in one script, archives them with their id, and sets the log\'s expiry when due', async () => {
    const { redis, store, log, archived, record } = await loggedTurn('sv1', 'v1');
    const settling: TurnRecord = { ...record, status: 'settled', settledAs: 'complete' };
    const entries = [{ type: 'delivery' as const, turnId: record.turnId, data: { key: 'k1' } }, { type: 'turn_state' as const, turnId: record.turnId, actor: 'main', data: { turnState: 'complete' } }];
    await store.saveTurn(settling, log.prepare('sv1', entries));
    expect(JSON.parse((await redis.get(`${prefix()}:s:sv1:turn`)) ?? 'null')).toEqual(settling);
    await expectLogged({ redis, log, archived }, 'sv1', entries);
  });

  it('saves neither when the log\'s key cannot take the entry', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const log = createEventLog({ redis, prefix: prefix() });
    const record = await startTurn(store, 'sv2', 'v2');
    await redis.set(eventLogKey(prefix(), 'sv2'), 'not a stream');
    const settling: TurnRecord = { ...record, status: 'settled', settledAs: 'complete' };
    await expect(store.saveTurn(settling, log.prepare('sv2', [{ type: 'turn_state', turnId: record.turnId, data: {} }]))).rejects.toThrow(/WRONGTYPE/);
    expect(JSON.parse((await redis.get(`${prefix()}:s:sv2:turn`)) ?? 'null')).toEqual(record);
  });
});

/** A running turn of `sessionId` begun from message `messageId`, beside an event log whose sessions expire after an hour and whose archive records what it was given. */
async function loggedTurn(sessionId: string, messageId: string): Promise<{ redis: Awaited<ReturnType<typeof connect>>; store: SessionStore; log: BatchEventLog; archived: StoredEventLogEntry[][]; record: TurnRecord }> {
  const redis = await connect();
  const store = createSessionStore({ redis, prefix: prefix() });
  const archived: StoredEventLogEntry[][] = [];
  const log = createEventLog({ redis, prefix: prefix(), maxAgeSeconds: 3600, archive: (_session, entries) => { archived.push([...entries]); return Promise.resolve(); } });
  return { redis, store, log, archived, record: await startTurn(store, sessionId, messageId) };
}

/** The session's log holds `entries` (as one write, archived with their ids) and was given its hour's expiry. */
async function expectLogged(
  { redis, log, archived }: Pick<Awaited<ReturnType<typeof loggedTurn>>, 'redis' | 'log' | 'archived'>,
  sessionId: string,
  entries: readonly { type: string; turnId?: string; data: Record<string, unknown> }[],
): Promise<void> {
  const stored = await log.read(sessionId);
  expect(stored.map(({ type, turnId, data }) => ({ type, turnId, data }))).toEqual(entries.map(({ type, turnId, data }) => ({ type, turnId, data })));
  expect(archived).toEqual([stored]);
  expect(await redis.ttl(eventLogKey(prefix(), sessionId))).toBeGreaterThan(3500);
}

/** A lock held with `token`, watched in `watchKey`, and whether its holder was told it was let go. */
async function heldLock(redis: Awaited<ReturnType<typeof connect>>, sessionId: string, token: string, watchKey?: string): Promise<HeldLock & { told: () => boolean }> {
  const key = `${prefix()}:session-lock:${sessionId}`;
  await redis.set(key, token, 'PX', 60_000);
  if (watchKey !== undefined) await redis.zadd(watchKey, Date.now(), sessionId);
  let told = false;
  return { key, token, ...(watchKey === undefined ? {} : { watchKey }), letGo: () => { told = true; }, told: () => told };
}

/** A new turn of `sessionId` on `store`, from a fresh injection `id`, its record saved. */
async function startTurn(store: SessionStore, sessionId: string, id: string): Promise<TurnRecord> {
  await store.accept(sessionId, sampleInjection(id));
  const progress = await store.beginTurn(sessionId, (first) => recordFor(sessionId, first, `turn_${id}`));
  if (progress === undefined) throw new Error('no turn');
  await progress.saved;
  return progress.record;
}

describe('a finish that lets the session lock go', () => {
  it('deletes the lock and the watch entry with the turn when the mailbox is empty, and tells the holder', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const watchKey = `${prefix()}:inline-turns`;
    const record = await startTurn(store, 'sl1', 'l1');
    const lock = await heldLock(redis, 'sl1', 'tok-1', watchKey);
    expect(await store.finishTurn(record, [say('hi')], undefined, { lock })).toBe(0);
    expect(await redis.exists(lock.key)).toBe(0);
    expect(await redis.zscore(watchKey, 'sl1')).toBeNull();
    expect(lock.told()).toBe(true);
  });

  it('keeps the lock while a message waits, and when the lock is no longer this holder\'s', async () => {
    const redis = await connect();
    const store = createSessionStore({ redis, prefix: prefix() });
    const watchKey = `${prefix()}:inline-turns`;
    const busy = await startTurn(store, 'sl2', 'l2');
    await store.accept('sl2', sampleInjection('l2-next'));
    const kept = await heldLock(redis, 'sl2', 'tok-2', watchKey);
    expect(await store.finishTurn(busy, [say('hi')], undefined, { lock: kept })).toBe(1);
    expect(await redis.get(kept.key)).toBe('tok-2');
    expect(await redis.zscore(watchKey, 'sl2')).not.toBeNull();
    expect(kept.told()).toBe(false);

    const lost = await startTurn(store, 'sl3', 'l3');
    const theirs = await heldLock(redis, 'sl3', 'tok-theirs', watchKey);
    expect(await store.finishTurn(lost, [say('hi')], undefined, { lock: { ...theirs, token: 'tok-mine' } })).toBe(0);
    expect(await redis.get(theirs.key)).toBe('tok-theirs');
    expect(await redis.zscore(watchKey, 'sl3')).not.toBeNull();
    expect(theirs.told()).toBe(false);
  });
});
