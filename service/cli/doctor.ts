import type { ChannelModule, DoctorCheck } from '../../channels/channel.ts';
import { CHANNEL_MODULES } from '../../channels/registry.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { startEmbeddedRedis } from '../../src/runtime/redis/embedded-redis.ts';
import { createRedisClient, isCluster, redisScanNodes } from '../../src/runtime/redis/redis-client.ts';

/** One line of the doctor's table. */
type Check = DoctorCheck;

async function checkRedis(env: SwitchboardEnv): Promise<Check> {
  if (env.redis.mode === 'external') {
    const redis = createRedisClient(env.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      const cluster = isCluster(redis);
      // INFO and CONFIG are per server: on a cluster, ask every master (each may own the deployment's slot).
      const nodes = await redisScanNodes(redis);
      let version = 'unknown';
      for (const node of nodes) {
        version = /redis_version:(\S+)/.exec(await node.info('server'))?.[1] ?? 'unknown';
        const eviction = (await node.config('GET', 'maxmemory-policy'))[1] ?? 'unknown';
        const major = Number(version.split('.')[0]);
        const minor = Number(version.split('.')[1]);
        const where = cluster ? ` on ${node.options.host ?? '?'}:${node.options.port ?? '?'}` : '';
        if (major < 6 || (major === 6 && minor < 2)) return { name: 'redis', status: 'fail', detail: `Redis ${version}${where}: 6.2 or newer is needed` };
        if (eviction !== 'noeviction') return { name: 'redis', status: 'fail', detail: `maxmemory-policy is ${eviction}${where}; queues need noeviction` };
      }
      const what = cluster ? `a Redis Cluster of ${nodes.length} masters` : 'answers';
      return { name: 'redis', status: 'ok', detail: `REDIS_URL ${what}, Redis ${version}, noeviction` };
    } catch (error) {
      return { name: 'redis', status: 'fail', detail: `REDIS_URL does not answer: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      redis.disconnect();
    }
  }
  try {
    const embedded = await startEmbeddedRedis({ dataDir: env.redis.dataDir });
    await embedded.stop();
    return { name: 'redis', status: 'ok', detail: `a private redis-server starts (data in ${env.redis.dataDir})` };
  } catch (error) {
    return { name: 'redis', status: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
}

async function checkModel(env: SwitchboardEnv): Promise<Check> {
  const { apiKey, baseUrl } = env.anthropic;
  if (apiKey === undefined && baseUrl === 'https://api.anthropic.com') {
    return { name: 'model', status: 'fail', detail: 'set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for an Anthropic-compatible server)' };
  }
  try {
    const response = await fetch(`${baseUrl}/v1/models?limit=1`, {
      headers: { 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' },
      signal: AbortSignal.timeout(5000),
    });
    if (response.status === 401 || response.status === 403) return { name: 'model', status: 'fail', detail: `${baseUrl} refused the API key (HTTP ${response.status})` };
    if (!response.ok && response.status !== 404) return { name: 'model', status: 'fail', detail: `${baseUrl} answered HTTP ${response.status}` };
    return { name: 'model', status: 'ok', detail: `${baseUrl} answers` };
  } catch (error) {
    return { name: 'model', status: 'fail', detail: `${baseUrl} unreachable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function channelChecks(env: SwitchboardEnv, modules: readonly ChannelModule[]): Promise<Check[]> {
  const checks: Check[] = [];
  for (const module of modules) {
    if (module.enabled(env)) checks.push(...(await module.doctor(env)));
    else checks.push({ name: `channel ${module.id}`, status: 'off', detail: `not configured (${module.envVariables.join(', ')})` });
  }
  return checks;
}

/** Checks Redis, the model endpoint and every channel; prints a table; resolves to the exit code. */
export async function runDoctor(env: SwitchboardEnv, out: { write(text: string): unknown }, modules: readonly ChannelModule[] = CHANNEL_MODULES): Promise<number> {
  const checks = [await checkRedis(env), await checkModel(env), ...(await channelChecks(env, modules))];
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) out.write(`${check.name.padEnd(width)}  ${check.status.toUpperCase().padEnd(4)}  ${check.detail}\n`);
  const failed = checks.filter((check) => check.status === 'fail').length;
  out.write(failed === 0 ? 'all checks passed\n' : `${failed} check(s) failed\n`);
  return failed === 0 ? 0 : 1;
}
