/**
 * A process that runs one singleton listener, for the lease process test. Run as
 * `node test/kit/lease-child.ts '<json LeaseChildConfig>'`. The listener writes a heartbeat
 * `<name>:<token>` through the fence every `heartbeatEveryMs`. Prints one line per event: `ready`,
 * `acquired <token>`, `refused <token>`, `stopped <token>`, `error <code>`. Stops cleanly on SIGTERM.
 */
import { Redis } from 'ioredis';
import { fencedSet } from '../../channels/kit/lease/fenced-write.ts';
import { createLease } from '../../channels/kit/lease/lease.ts';
import { runSingleton } from '../../channels/kit/lease/run-singleton.ts';
import type { SwitchboardError } from '../../src/protocol/errors.ts';

/** What the parent passes as the only argument, as JSON. */
export interface LeaseChildConfig {
  readonly name: string;
  readonly redisUrl: string;
  readonly leaseKey: string;
  readonly heartbeatKey: string;
  readonly ttlMs: number;
  readonly heartbeatEveryMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as LeaseChildConfig;
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });

const singleton = runSingleton({
  lease: createLease({ redis, key: config.leaseKey, ttlMs: config.ttlMs, ownerId: config.name }),
  start: async (fence) => {
    say(`acquired ${fence.token}`);
    const beat = async (): Promise<void> => {
      try {
        await fencedSet(redis, { ...fence, key: config.heartbeatKey, value: `${config.name}:${fence.token}` });
      } catch (error) {
        say(`refused ${fence.token} ${(error as SwitchboardError).code}`);
      }
    };
    await beat();
    const timer = setInterval(() => void beat(), config.heartbeatEveryMs);
    return {
      stop: () => {
        clearInterval(timer);
        say(`stopped ${fence.token}`);
        return Promise.resolve();
      },
    };
  },
  onError: (error) => { say(`error ${error.code} ${error.message}`); },
});
say('ready');

process.once('SIGTERM', () => {
  void singleton
    .stop()
    .then(() => redis.quit())
    .finally(() => process.exit(0));
});
