/**
 * A switchboard service (role `all`) whose every Redis connection goes through a cutting proxy
 * (`cutting-proxy.ts`), and a client straight to Redis to look at what the cut left.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { useSwitchboard, type SwitchboardHarness } from '../support/switchboard-harness.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';

/** What {@link useServiceBehindCuttingProxy} gives; each getter throws before the file's hooks ran. */
export interface BehindCuttingProxy {
  readonly proxy: () => CuttingProxy;
  readonly direct: () => Redis;
  readonly sb: () => SwitchboardHarness;
}

/** Starts a Redis, the proxy in front of it, and the service of `appDir` behind the proxy. */
export function useServiceBehindCuttingProxy(appDir: string): BehindCuttingProxy {
  const redisUrl = useRedis();
  let proxy: CuttingProxy | undefined;
  let direct: Redis | undefined;
  beforeAll(async () => {
    proxy = await startCuttingProxy(redisUrl());
    direct = new Redis(redisUrl());
  });
  // Registered before the service's own hooks, so this runs after the service has closed.
  afterAll(async () => {
    await direct?.quit();
    await proxy?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the proxy starts first');
    return value;
  };
  const sb = useSwitchboard({ appDir, redisUrl: () => started(proxy).url });
  return { proxy: () => started(proxy), direct: () => started(direct), sb };
}
