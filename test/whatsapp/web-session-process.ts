/**
 * A worker process that runs the WhatsApp Web listener under the service's singleton runner, with
 * the fake whatsapp-web.js client, for the test of two processes sharing one session. Run as
 * `node test/whatsapp/web-session-process.ts '<json config>'`. It prints one line per event:
 * `started <pid>`, `client <n>` (a client was made: this process holds the session), `qr`,
 * `scanned`, `ready <number>`. The test "scans" by setting `<prefix>:test:scan`; SIGTERM stops it.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createWebListener } from '../../channels/whatsapp/web/web-listener.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import { createSingletonRunner } from '../../service/singleton-runner.ts';
import { createFakeWwebjs } from '../fakes/fake-wwebjs.ts';

interface SessionProcessConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  /** Lifetime of the lease, in ms. */
  readonly leaseTtlMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as SessionProcessConfig;
const say = (line: string): void => { process.stdout.write(`${line}\n`); };
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
const logger = pino({ level: 'silent' });
const fake = createFakeWwebjs();
const factory: typeof fake.factory = (options) => {
  const client = fake.factory(options);
  say(`client ${String(fake.clients.length)}`);
  client.on('qr', () => { say('qr'); });
  client.on('ready', () => { say(`ready ${client.info?.wid.user ?? ''}`); });
  return client;
};
const listener = createWebListener({
  factory,
  env: { mode: 'web', sessionDir: undefined, chromiumPath: 'chromium' },
  redis,
  prefix: config.prefix,
  intake: { take: () => Promise.resolve({ duplicate: false }) },
  artifacts: createRedisArtifactStore({ redis, prefix: config.prefix }),
  logger,
  clock: () => new Date(),
  groups: 'mentions',
  printQr: () => Promise.resolve(),
});
const runner = createSingletonRunner({ redis, prefix: config.prefix, logger, leaseTtlMs: config.leaseTtlMs });
const running = runner(`whatsapp:${listener.singletonKey ?? ''}`, listener);

const scanKey = `${config.prefix}:test:scan`;
const watch = setInterval(() => {
  const client = fake.clients.at(-1);
  if (client?.state !== 'waiting-for-qr') return;
  void redis.del(scanKey).then(async (deleted) => {
    if (deleted !== 1) return;
    await client.scan();
    say('scanned');
  });
}, 50);

say(`started ${String(process.pid)}`);
process.once('SIGTERM', () => {
  clearInterval(watch);
  void running.stop().then(async () => {
    await redis.quit();
    process.exit(0);
  });
});
