/**
 * `switchboard doctor` checks of web mode: the browser is found and starts (`--version`), where
 * the session is kept, and, when `REDIS_URL` names a running Redis, the session's link state.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { DoctorCheck } from '../../channel.ts';
import type { RedisEnv, WhatsAppWebEnv } from '../../../src/config/env-types.ts';
import { createRedisClient } from '../../../src/runtime/redis/redis-client.ts';
import { deploymentPrefix } from '../../../src/runtime/redis/redis-target.ts';
import { resolveChromiumPath } from './chromium-path.ts';
import { createLinkStateStore, type LinkState } from './link-state.ts';

const run = promisify(execFile);

async function browserCheck(env: WhatsAppWebEnv): Promise<DoctorCheck> {
  try {
    const path = resolveChromiumPath(env.chromiumPath);
    const { stdout } = await run(path, ['--headless', '--no-sandbox', '--version'], { timeout: 15_000 });
    return { name: 'whatsapp web browser', status: 'ok', detail: `${stdout.trim()} at ${path}` };
  } catch (error) {
    return { name: 'whatsapp web browser', status: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
}

function stateWords(state: LinkState | undefined): string {
  if (state === undefined) return 'no session has started yet: start a worker and scan the QR code on /admin/whatsapp';
  const number = state.number === undefined ? '' : ` as ${state.number}`;
  return `${state.status}${number} since ${state.since}${state.alert === undefined ? '' : `: ${state.alert}`}`;
}

async function sessionCheck(env: WhatsAppWebEnv, redisEnv: RedisEnv): Promise<DoctorCheck> {
  const kept = env.sessionDir === undefined ? 'kept in Redis (RemoteAuth)' : `kept in ${env.sessionDir} (LocalAuth)`;
  if (redisEnv.mode !== 'external') return { name: 'whatsapp web session', status: 'ok', detail: `${kept}; link state on /admin/whatsapp while the service runs` };
  const redis = createRedisClient(redisEnv.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null });
  // A refused connection is reported below; without a listener ioredis would also print it.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const state = await createLinkStateStore({ redis, prefix: deploymentPrefix(redisEnv.url) }).read();
    const healthy = state === undefined || state.status === 'ready' || state.status === 'starting' || state.status === 'authenticated';
    return { name: 'whatsapp web session', status: healthy ? 'ok' : 'fail', detail: `${kept}; ${stateWords(state)}` };
  } catch (error) {
    return { name: 'whatsapp web session', status: 'fail', detail: `${kept}; the link state could not be read: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    redis.disconnect();
  }
}

/** The browser and the session. */
export async function webDoctor(env: WhatsAppWebEnv, redisEnv: RedisEnv): Promise<readonly DoctorCheck[]> {
  return [await browserCheck(env), await sessionCheck(env, redisEnv)];
}
