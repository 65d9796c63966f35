/**
 * The first lines of the channel benches: which machine, Node and Redis the figures come from, and
 * the Redis set up as the main bench sets it up (append-only file on, automatic rewrite off, so a
 * fork does not land in one measurement).
 */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import type { Redis } from 'ioredis';

/** Turns automatic AOF rewrites off; resolves to the Redis version. */
export async function prepareBenchRedis(redis: Redis): Promise<string> {
  await redis.config('SET', 'auto-aof-rewrite-percentage', '0');
  return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
}

/** `<title>: 2 cores (CPU), 24 GiB, Node v24…, Redis 7…; load average 0.4`, flagged when the machine is busy. */
export function machineLine(title: string, redisVersion: string): string {
  const load = loadavg()[0] ?? 0;
  const busy = load > availableParallelism() / 2 ? ' (other processes are busy on this machine: the figures are noisy)' : '';
  return (
    `${title}: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `Node ${process.version}, Redis ${redisVersion} (AOF on, automatic rewrite off); load average before the run ${load.toFixed(1)}${busy}`
  );
}
