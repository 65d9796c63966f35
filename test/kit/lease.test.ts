/**
 * Two processes run the same singleton listener; the holder is SIGKILLed and the other must take
 * over within about one TTL, with a higher fencing token, while the dead holder's token can no
 * longer write.
 */
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fencedSet } from '../../channels/kit/lease/fenced-write.ts';
import { readLeaseHolder } from '../../channels/kit/lease/lease-keys.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { startLeaseChild, type LeaseChild } from './lease-children.ts';
import { useRedisClients } from '../support/redis-clients.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const ttlMs = 1500;
const marginMs = 1000;

let children: LeaseChild[] = [];
afterEach(async () => {
  await Promise.all(children.map((child) => child.stop()));
  children = [];
});

interface Running {
  readonly holder: LeaseChild;
  readonly other: LeaseChild;
  readonly token: number;
  readonly keys: { readonly leaseKey: string; readonly heartbeatKey: string };
}

/** Starts `alpha` and `beta` on one lease and waits until one holds it and has written its heartbeat. */
async function startPair(redis: Redis): Promise<Running> {
  const keys = { leaseKey: `${prefix()}:lease:listener`, heartbeatKey: `${prefix()}:heartbeat` };
  const common = { redisUrl: redisUrl(), ...keys, ttlMs, heartbeatEveryMs: 100 };
  children = await Promise.all(['alpha', 'beta'].map((name) => startLeaseChild({ name, ...common })));
  const current = await vi.waitFor(async () => {
    const found = await readLeaseHolder(redis, keys.leaseKey);
    if (found === undefined) throw new Error('nobody holds the lease yet');
    return found;
  }, { timeout: 10_000 });
  const [holder, other] = current.ownerId === 'alpha' ? children : [...children].reverse();
  if (holder === undefined || other === undefined) throw new Error('two children expected');
  const { match } = await holder.waitForLine(/^acquired (\d+)$/, 5000);
  expect(Number(match[1])).toBe(current.token);
  expect(other.lines.some((line) => line.text.startsWith('acquired'))).toBe(false);
  await vi.waitFor(async () => { expect(await redis.get(keys.heartbeatKey)).toBe(`${holder.name}:${current.token}`); });
  return { holder, other, token: current.token, keys };
}

describe('singleton lease across processes', () => {
  it('hands over to the survivor within one TTL of SIGKILL, and fences the dead holder out', async () => {
    const redis = await connect();
    const { holder: dead, other: survivor, token: deadToken, keys } = await startPair(redis);
    const { leaseKey, heartbeatKey } = keys;

    const seen = survivor.lines.length;
    const killedAt = performance.now();
    await dead.kill();
    const { line, match } = await survivor.waitForLine(/^acquired (\d+)$/, ttlMs + 5000, seen);
    const takeOverMs = Math.round(line.at - killedAt);
    const survivorToken = Number(match[1]);
    console.log(`lease take-over after SIGKILL: ${takeOverMs} ms (ttl ${ttlMs} ms), token ${deadToken} -> ${survivorToken}`);
    expect(takeOverMs).toBeLessThan(ttlMs + marginMs);
    expect(survivorToken).toBeGreaterThan(deadToken);
    expect(await readLeaseHolder(redis, leaseKey)).toMatchObject({ ownerId: survivor.name, token: survivorToken });
    await vi.waitFor(async () => { expect(await redis.get(heartbeatKey)).toBe(`${survivor.name}:${survivorToken}`); });

    // A write still carrying the dead holder's token (a paused zombie) is refused.
    const refused: unknown = await fencedSet(redis, { leaseKey, token: deadToken, key: heartbeatKey, value: `${dead.name}:${deadToken}` })
      .then(() => undefined, (error: unknown) => error);
    expect(refused).toMatchObject({ code: 'lease.stale_fence', retryable: false, details: { token: deadToken, latestToken: survivorToken } });
    expect(await redis.get(heartbeatKey)).toBe(`${survivor.name}:${survivorToken}`);
    expect(survivor.lines.filter((entry) => /^(refused|error)/.test(entry.text))).toEqual([]);
  });

  it('refuses the writes of a holder that was paused past its TTL, or it steps down before writing', async () => {
    const redis = await connect();
    const { holder: paused, other: successor, token: oldToken, keys } = await startPair(redis);

    const seen = { paused: paused.lines.length, successor: successor.lines.length };
    paused.signal('SIGSTOP');
    const { match } = await successor.waitForLine(/^acquired (\d+)$/, ttlMs + 5000, seen.successor);
    const newToken = Number(match[1]);
    await vi.waitFor(async () => { expect(await redis.get(keys.heartbeatKey)).toBe(`${successor.name}:${newToken}`); });

    // On waking up, either its heartbeat timer fires first and the fence refuses the write, or its
    // own expiry check fires first and it steps down without writing (which timer runs first after
    // a pause is up to the machine's load). Either way nothing of it lands and it stops.
    paused.signal('SIGCONT');
    await paused.waitForLine(new RegExp(`^stopped ${oldToken}$`), 5000, seen.paused);
    const after = paused.lines.slice(seen.paused).map((line) => line.text);
    expect(after.some((text) => text === `refused ${String(oldToken)} lease.stale_fence` || text.startsWith('error lease.lost'))).toBe(true);
    expect(await redis.get(keys.heartbeatKey)).toBe(`${successor.name}:${newToken}`);
    expect(await readLeaseHolder(redis, keys.leaseKey)).toMatchObject({ ownerId: successor.name, token: newToken });
    expect(paused.lines.slice(seen.paused).some((line) => line.text.startsWith('acquired'))).toBe(false);
  });
});
