/**
 * RemoteAuth's store in Redis: the zipped browser profile of the linked session, as one binary
 * string, so whichever worker takes the lease next resumes the session without a QR code. Saving
 * and deleting go through the lease fence: a holder that lost the lease without noticing cannot
 * overwrite (or delete) what its successor keeps.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { defineFencedScript, runFencedScript } from '../../kit/lease/fenced-write.ts';
import type { FenceRef } from '../../kit/lease/lease-keys.ts';
import type { WebSessionStore } from './web-client.ts';
import { webKeys } from './web-keys.ts';

/** Options of {@link createRedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** The command connection; never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  /** The fence of the lease held while the session runs. */
  readonly fence: FenceRef;
  /** RemoteAuth's `dataPath`: where it writes `<session>.zip` before calling `save`. */
  readonly dataPath: string;
}

/** How long the bytes of a save wait in their staging key for the fenced rename, in ms. */
const STAGING_TTL_MS = 10 * 60_000;

/** Moves the staged bytes into place, only for the current holder. */
const PROMOTE = defineFencedScript(`return redis.call('RENAME', keys[1], keys[2])`);
const DELETE = defineFencedScript(`return redis.call('DEL', keys[1])`);

/** RemoteAuth names sessions `RemoteAuth` or `RemoteAuth-<clientId>`; anything else is refused. */
function checkedName(session: string): string {
  if (/^[-\w]{1,64}$/.test(session)) return session;
  throw new SwitchboardError('channel.invalid', `Not a whatsapp-web.js session name: ${JSON.stringify(session)}`, { details: { session } });
}

/**
 * Creates the store for one lease acquisition.
 *
 * @example
 * const store = createRedisSessionStore({ redis, prefix, fence, dataPath });
 * const auth = { kind: 'remote', store, dataPath, backupSyncIntervalMs: 300_000 };
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): WebSessionStore {
  const { redis, fence } = options;
  const keys = webKeys(options.prefix);
  return {
    async sessionExists({ session }) {
      return (await redis.exists(keys.session(checkedName(session)))) === 1;
    },
    async save({ session }) {
      const key = keys.session(checkedName(session));
      const bytes = await readFile(join(options.dataPath, `${session}.zip`));
      // The bytes go in unfenced (a script takes no binary arguments here); only the rename is fenced.
      const staging = `${key}:staging:${fence.token}`;
      await redis.set(staging, bytes, 'PX', STAGING_TTL_MS);
      try {
        await runFencedScript(redis, PROMOTE, fence, [staging, key], []);
      } catch (error) {
        await redis.del(staging).catch(() => undefined);
        throw error;
      }
    },
    async extract({ session, path }) {
      const bytes = await redis.getBuffer(keys.session(checkedName(session)));
      if (bytes === null) throw new SwitchboardError('channel.unavailable', `No WhatsApp Web session ${session} is kept in Redis.`, { details: { session } });
      await writeFile(path, bytes);
    },
    async delete({ session }) {
      await runFencedScript(redis, DELETE, fence, [keys.session(checkedName(session))], []);
    },
  };
}
