import { describe, expect, it } from 'vitest';
import { useKeyPrefix, useRedis } from '../../../test/support/redis.ts';
import { useRedisClients } from '../../../test/support/redis-clients.ts';
import { createBufferedEventLog } from './buffered-event-log.ts';
import { createEventLog, type StoredEventLogEntry } from './event-log.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);

describe('event log', () => {
  it('writes a batch as one stream entry and reads it back as separate entries, in order', async () => {
    const redis = await connect();
    const log = createEventLog({ redis, prefix: prefix() });
    await log.append('s1', { type: 'injection', data: { id: 'web:1' } });
    await log.appendAll('s1', [
      { type: 'turn_started', turnId: 't1', actor: 'main', data: { step: 0 } },
      { type: 'model_request', turnId: 't1', actor: 'main', data: { step: 0 } },
      { type: 'part', turnId: 't1', data: { partId: 'p1' } },
    ]);
    expect(await redis.xlen(`${prefix()}:s:s1:log`)).toBe(2);
    const read = await log.read('s1');
    expect(read.map((entry) => entry.type)).toEqual(['injection', 'turn_started', 'model_request', 'part']);
    expect(read[1]).toMatchObject({ turnId: 't1', actor: 'main', data: { step: 0 } });
    expect(read[3]).not.toHaveProperty('actor');
    const [, first, second] = read;
    expect(second?.id).toBe(`${first?.id ?? ''}/1`);
    expect(second?.at).toBe(first?.at);
    expect(await log.read('s1', 2)).toHaveLength(2);
  });

  it('keeps a batch\'s data as JSON inside it, redacted and truncated, and still reads batches of the earlier form', async () => {
    const redis = await connect();
    const redact = (json: string): string => json.replaceAll('sk-secret', '[redacted]');
    const log = createEventLog({ redis, prefix: prefix(), redact, maxValueChars: 60 });
    const quoted = 'she said "hi"';
    await log.appendAll('s11', [
      { type: 'part', turnId: 't1', data: { text: quoted, key: 'sk-secret' } },
      { type: 'tool_call', data: { result: 'x'.repeat(100) } },
    ]);
    const [[, fields] = ['', []]] = await redis.xrange(`${prefix()}:s:s11:log`, '-', '+');
    expect(fields[0]).toBe('batch');
    // The data is nested JSON: its quotes are escaped once, not twice.
    expect(fields[1]).toContain('"data":{"text":"she said \\"hi\\"","key":"[redacted]"}');
    expect(fields[1]).not.toContain('sk-secret');
    const [part, tool] = await log.read('s11');
    expect(part).toMatchObject({ type: 'part', turnId: 't1', data: { text: quoted, key: '[redacted]' } });
    expect(tool?.data).toMatchObject({ truncated: true });
    expect(tool).not.toHaveProperty('turnId');
    // A batch as earlier versions wrote it (each entry's data a string of JSON) reads the same.
    const earlier = JSON.stringify([{ type: 'part', turnId: 't0', data: JSON.stringify({ text: quoted }) }, { type: 'delivery', data: '{}' }]);
    await redis.xadd(`${prefix()}:s:s12:log`, '*', 'batch', earlier);
    expect((await log.read('s12')).map(({ type, turnId, data }) => ({ type, turnId, data }))).toEqual([
      { type: 'part', turnId: 't0', data: { text: quoted } },
      { type: 'delivery', turnId: undefined, data: {} },
    ]);
  });

  it('keeps a capped log that expires after its age without entries', async () => {
    const redis = await connect();
    const log = createEventLog({ redis, prefix: prefix(), maxEntries: 10, maxAgeSeconds: 3600 });
    for (let index = 0; index < 400; index += 1) await log.append('s2', { type: 'delivery', data: { index } });
    expect(await redis.xlen(`${prefix()}:s:s2:log`)).toBeLessThan(400);
    const ttl = await redis.ttl(`${prefix()}:s:s2:log`);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it('sets the expiry again only once the refresh interval has passed since it last did', async () => {
    const redis = await connect();
    let now = 1_000_000;
    const log = createEventLog({ redis, prefix: prefix(), maxAgeSeconds: 3600, expiryRefreshSeconds: 60, now: () => now });
    const key = `${prefix()}:s:s9:log`;
    await log.append('s9', { type: 'delivery', data: {} });
    expect(await redis.ttl(key)).toBeGreaterThan(3500);
    await redis.persist(key);
    now += 59_000;
    await log.appendAll('s9', [{ type: 'delivery', data: {} }, { type: 'delivery', data: {} }]);
    expect(await redis.ttl(key)).toBe(-1);
    now += 1_000;
    await log.append('s9', { type: 'delivery', data: {} });
    expect(await redis.ttl(key)).toBeGreaterThan(3500);
    // Another session's first write sets its own expiry at once.
    await log.append('s10', { type: 'delivery', data: {} });
    expect(await redis.ttl(`${prefix()}:s:s10:log`)).toBeGreaterThan(3500);
  });

  it('hands every entry written to the archive, and a failing archive fails nothing', async () => {
    const redis = await connect();
    const archived: [string, StoredEventLogEntry[]][] = [];
    const log = createEventLog({ redis, prefix: prefix(), archive: (sessionId, entries) => { archived.push([sessionId, [...entries]]); return Promise.resolve(); } });
    await log.append('s3', { type: 'injection', data: { id: 'a' } });
    await log.appendAll('s3', [{ type: 'part', data: { n: 1 } }, { type: 'part', data: { n: 2 } }]);
    expect(archived.map(([sessionId, entries]) => [sessionId, entries.map((entry) => entry.data)])).toEqual([
      ['s3', [{ id: 'a' }]],
      ['s3', [{ n: 1 }, { n: 2 }]],
    ]);
    expect(archived.flatMap(([, entries]) => entries.map((entry) => entry.id))).toEqual((await log.read('s3')).map((entry) => entry.id));

    const errors: unknown[] = [];
    const failing = createEventLog({ redis, prefix: prefix(), archive: () => Promise.reject(new Error('archive down')), onArchiveError: (error) => errors.push(error) });
    await expect(failing.append('s4', { type: 'injection', data: {} })).resolves.toMatch(/^\d+-\d+$/);
    expect(errors).toHaveLength(1);
    expect(await failing.read('s4')).toHaveLength(1);
  });

  it('cuts a long value', async () => {
    const redis = await connect();
    const log = createEventLog({ redis, prefix: prefix(), maxValueChars: 20 });
    await log.append('s5', { type: 'part', data: { text: 'x'.repeat(100) } });
    expect((await log.read('s5'))[0]?.data).toEqual({ truncated: true, head: '{"text":"xxxxxxxxxxx' });
  });
});

describe('buffered event log', () => {
  it('holds entries until flush, then writes them as one command; read flushes first', async () => {
    const redis = await connect();
    const log = createEventLog({ redis, prefix: prefix() });
    const buffered = createBufferedEventLog(log);
    await buffered.append('s6', { type: 'turn_started', data: {} });
    await buffered.append('s6', { type: 'part', data: {} });
    await buffered.append('other', { type: 'part', data: {} });
    expect(await redis.exists(`${prefix()}:s:s6:log`)).toBe(0);
    await buffered.flush('s6');
    expect(await redis.xlen(`${prefix()}:s:s6:log`)).toBe(1);
    expect((await log.read('s6')).map((entry) => entry.type)).toEqual(['turn_started', 'part']);
    await buffered.flush('s6');
    expect(await redis.xlen(`${prefix()}:s:s6:log`)).toBe(1);
    expect((await buffered.read('other')).map((entry) => entry.type)).toEqual(['part']);
  });

  it('reports a failed write, and a later flush writes only what came after it', async () => {
    const redis = await connect();
    const log = createEventLog({ redis, prefix: prefix() });
    let failNext = true;
    const flaky = {
      ...log,
      appendAll: (sessionId: string, entries: Parameters<typeof log.appendAll>[1]) => {
        if (!failNext) return log.appendAll(sessionId, entries);
        failNext = false;
        return Promise.reject(new Error('Redis went away'));
      },
    };
    const buffered = createBufferedEventLog(flaky);
    await buffered.append('s7', { type: 'turn_started', data: {} });
    await expect(buffered.flush('s7')).rejects.toThrow('Redis went away');
    await buffered.append('s7', { type: 'turn_settled', data: {} });
    await buffered.flush('s7');
    // The lost batch is not written late and out of order; the turn's retry logs it again.
    expect((await log.read('s7')).map((entry) => entry.type)).toEqual(['turn_settled']);
  });
});
