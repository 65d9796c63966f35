/**
 * `node bench/trace-message.ts`: every Redis command one web chat message causes, from the POST to
 * the delivered response part, read with `MONITOR` (a warm-up message first, so only the steady
 * path is shown). Prints the commands in order, grouped by client, and a count by name.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createWebEventStore } from '../channels/web/stream/event-store.ts';
import { loadEnv } from '../src/config/env.ts';
import { startEmbeddedRedis } from '../src/runtime/redis/embedded-redis.ts';
import { startService } from '../service/create-service.ts';
import { createWebClient } from '../test/web/web-client.ts';
import { instantModel } from './instant-model.ts';

const appDir = fileURLToPath(new URL('../test/fixtures/followup-app/', import.meta.url));
const dataDir = await mkdtemp(join(tmpdir(), 'switchboard-trace-'));
const server = await startEmbeddedRedis({ dataDir });
try {
  const prefix = 'trace';
  const env = loadEnv({ SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: server.url }, { appDir });
  const service = await startService({ env, role: 'all', redisUrl: server.url, logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel });
  const redis = new Redis(server.url);
  const store = createWebEventStore({ redis, keyPrefix: prefix });
  let resolveDelivered: (() => void) | undefined;
  const stop = await store.subscribe('trace-1', ({ event }) => {
    if (event.type === 'part' && event.part.metadata.partType === 'response') resolveDelivered?.();
  });
  const browser = createWebClient(service.url ?? '');
  await browser.session();
  const send = async (id: string): Promise<void> => {
    const delivered = new Promise<void>((resolve) => { resolveDelivered = resolve; });
    await browser.post('/api/chat/trace-1/messages', { text: id, id });
    await delivered;
    await new Promise((resolve) => setTimeout(resolve, 300));
  };
  await send('warm');
  const lines: string[] = [];
  const monitor = await redis.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    lines.push(`${source.padEnd(16)} ${args.map((arg) => (arg.length > 60 ? `${arg.slice(0, 57)}...` : arg)).join(' ')}`);
  });
  await send('traced');
  monitor.disconnect();
  const counts = new Map<string, number>();
  for (const line of lines) {
    const name = line.slice(17).split(' ')[0]?.toLowerCase() ?? '';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  process.stdout.write(`${lines.join('\n')}\n\n${lines.length} commands: ${[...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${n} ${name}`).join(', ')}\n`);
  await stop();
  await store.close();
  await redis.quit();
  await service.close();
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
