/**
 * RemoteAuth's store in Redis: the zip RemoteAuth wrote comes back byte for byte, and a holder
 * whose lease was taken over can neither overwrite nor delete its successor's session.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { createRedisSessionStore } from '../../channels/whatsapp/web/redis-session-store.ts';
import { REMOTE_SESSION_NAME } from '../../channels/whatsapp/web/web-client.ts';
import { useRedisClients } from '../support/redis-clients.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const connect = useRedisClients(redisUrl);
const session = REMOTE_SESSION_NAME;

let dataPath = '';
beforeEach(async () => {
  dataPath = await mkdtemp(join(tmpdir(), 'switchboard-session-store-'));
});
afterEach(async () => {
  await rm(dataPath, { recursive: true, force: true });
});

/** Writes the zip where RemoteAuth writes it before calling `save`. */
async function zipped(bytes: Buffer): Promise<void> {
  await writeFile(join(dataPath, `${session}.zip`), bytes);
}

describe('the Redis session store', () => {
  it('keeps the zip RemoteAuth wrote and gives back the same bytes', async () => {
    const redis = await connect();
    const fence = await createLease({ redis, key: `${prefix()}:lease`, ttlMs: 5000 }).acquire();
    const store = createRedisSessionStore({ redis, prefix: prefix(), fence, dataPath });
    expect(await store.sessionExists({ session })).toBe(false);

    const bytes = Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(256 * 1024), Buffer.from([0, 0xff, 0x80, 0x0d, 0x0a])]);
    await zipped(bytes);
    await store.save({ session });
    expect(await store.sessionExists({ session })).toBe(true);

    const out = join(dataPath, 'restored.zip');
    await store.extract({ session, path: out });
    expect((await readFile(out)).equals(bytes)).toBe(true);
    expect(await redis.keys(`${prefix()}:whatsapp:web:auth:*`)).toEqual([`${prefix()}:whatsapp:web:auth:${session}`]); // no staging key left

    await store.delete({ session });
    expect(await store.sessionExists({ session })).toBe(false);
    await expect(store.extract({ session, path: out })).rejects.toMatchObject({ code: 'channel.unavailable' });
  });

  it('refuses a stale holder: its save and delete leave the successor\'s session as it was', async () => {
    const redis = await connect();
    const leaseKey = `${prefix()}:lease`;
    const old = await createLease({ redis, key: leaseKey, ttlMs: 5000 }).acquire();
    const stale = createRedisSessionStore({ redis, prefix: prefix(), fence: old, dataPath });

    await redis.del(leaseKey); // the old holder paused past its TTL; a new one took over
    const fresh = await createLease({ redis, key: leaseKey, ttlMs: 5000 }).acquire();
    const current = createRedisSessionStore({ redis, prefix: prefix(), fence: fresh, dataPath });
    const successor = randomBytes(4096);
    await zipped(successor);
    await current.save({ session });

    await zipped(randomBytes(4096));
    await expect(stale.save({ session })).rejects.toMatchObject({ code: 'lease.stale_fence' });
    await expect(stale.delete({ session })).rejects.toMatchObject({ code: 'lease.stale_fence' });

    const out = join(dataPath, 'restored.zip');
    await current.extract({ session, path: out });
    expect((await readFile(out)).equals(successor)).toBe(true);
    expect(await redis.keys(`${prefix()}:whatsapp:web:auth:*:staging:*`)).toEqual([]);
  });

  it('takes only session names RemoteAuth makes', async () => {
    const redis = await connect();
    const fence = await createLease({ redis, key: `${prefix()}:lease`, ttlMs: 5000 }).acquire();
    const store = createRedisSessionStore({ redis, prefix: prefix(), fence, dataPath });
    await expect(store.sessionExists({ session: '../etc/passwd' })).rejects.toMatchObject({ code: 'channel.invalid' });
  });
});
