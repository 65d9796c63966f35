import type { ChannelModule, DoctorCheck } from '../../channels/channel.ts';
import { CHANNEL_MODULES } from '../../channels/registry.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import type { Redis } from 'ioredis';
import { isCluster, redisScanNodes } from '../../src/runtime/redis/redis-client.ts';
import { describeSenderPolicy, type SenderPolicy } from '../../src/runtime/senders/sender-policy.ts';
import { connectCliRedis, findCliRedis, type CliRedisTarget } from './cli-redis.ts';
import { readSenderPolicies } from './read-senders.ts';

/** One line of the doctor's table. */
type Check = DoctorCheck;

/** Checks the Redis a command would use (see `findCliRedis`): version 6.2+ and `noeviction` on every master. */
async function checkRedis(env: SwitchboardEnv): Promise<Check> {
  let redis: Redis;
  let target: CliRedisTarget;
  try {
    target = await findCliRedis(env.redis);
  } catch (error) {
    // Before `npm start`, no private Redis runs yet: that is the start's to open, not a fault.
    if (env.redis.mode === 'embedded') {
      return { name: 'redis', status: 'off', detail: `no service runs from this folder yet and REDIS_URL is unset: npm start starts a private redis-server (data in ${env.redis.dataDir})` };
    }
    return { name: 'redis', status: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
  try {
    redis = await connectCliRedis(target);
  } catch (error) {
    return { name: 'redis', status: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
  try {
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
    const what = cluster ? `is a Redis Cluster of ${nodes.length} masters` : 'answers';
    return { name: 'redis', status: 'ok', detail: `${target.name} (${target.address}) ${what}, Redis ${version}, noeviction` };
  } catch (error) {
    return { name: 'redis', status: 'fail', detail: `${target.name} (${target.address}): ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    redis.disconnect();
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
  const policies = await senderChecks(env);
  for (const module of modules) {
    if (module.enabled(env)) checks.push(...(await module.doctor(env)), ...policies(module.id));
    else checks.push({ name: `channel ${module.id}`, status: 'off', detail: `not configured (${module.envVariables.join(', ')})` });
  }
  return checks;
}

/** Who may write on each enabled channel (a line per channel), or why `switchboard.yaml` cannot say. */
async function senderChecks(env: SwitchboardEnv): Promise<(channel: string) => Check[]> {
  try {
    const policies: Readonly<Record<string, SenderPolicy>> = await readSenderPolicies(env);
    return (channel) => {
      const policy = policies[channel];
      return policy === undefined ? [] : [{ name: `senders ${channel}`, status: 'ok', detail: describeSenderPolicy(policy) }];
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n').join(' ') : String(error);
    let reported = false;
    return () => {
      if (reported) return [];
      reported = true;
      return [{ name: 'senders', status: 'fail', detail }];
    };
  }
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
