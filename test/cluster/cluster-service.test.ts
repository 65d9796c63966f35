/**
 * The whole service on a real Redis Cluster, as `REDIS_URL=redis://a,redis://b,redis://c` starts
 * it: a message posted in the web chat goes through the inbound and turn queues to the model and
 * back over the web event store to the browser's event stream, first with one process
 * (`role: 'all'`), then with a web process and two worker processes. After each, every key on the
 * cluster carries the `{sb}` hash tag (the default prefix on a cluster), so all are in one slot.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { closeRedis } from '../../queues/redis-connections.ts';
import { runDoctor } from '../../service/cli/doctor.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { createRedisClient, scanKeys } from '../../src/runtime/redis/redis-client.ts';
import { startService, type Service, type ServiceRole } from '../../service/create-service.ts';
import { describeOnCluster } from '../support/redis-cluster.ts';
import { openSse, type SseClient } from '../web/sse-client.ts';
import { createWebClient } from '../web/web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));

/** Answers every call with one complete response echoing the person's last text. */
const echoModel: ModelClient = {
  create(request) {
    const last = request.messages.at(-1);
    const text = last?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).at(-1) ?? '';
    return Promise.resolve({
      id: `msg_${randomUUID()}`,
      model: request.model,
      stopReason: 'tool_use',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      content: [{ type: 'tool_use', id: `toolu_${randomUUID()}`, name: 'respond', input: { parts: [{ text: `echo: ${text}`, metadata: { partType: 'response' } }], turnState: 'complete' } }],
    });
  },
};

interface WebEventData {
  readonly type: string;
  readonly turnState?: string;
  readonly part?: { readonly text?: string };
}

function dataOf(client: SseClient): WebEventData[] {
  return client.events.map((event) => JSON.parse(event.data) as WebEventData);
}

describeOnCluster('the service on a Redis Cluster', (cluster) => {
  let env: SwitchboardEnv;
  let redis: Redis;
  let services: Service[] = [];
  let streams: SseClient[] = [];

  beforeAll(() => {
    env = loadEnv({ REDIS_URL: cluster().url, SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent' }, { appDir });
    redis = createRedisClient(cluster().url);
  });
  afterEach(async () => {
    for (const stream of streams) stream.close();
    for (const service of services) await service.close();
    services = [];
    streams = [];
  });
  afterAll(async () => {
    await closeRedis(redis);
  });

  async function start(role: ServiceRole): Promise<Service> {
    if (env.redis.mode !== 'external') throw new Error('REDIS_URL was not read');
    const service = await startService({
      env, role, redisUrl: env.redis.url, logger: pino({ level: 'silent' }), model: echoModel, port: 0,
      sessionLockTtlMs: 5000, jobLockDurationMs: 5000,
    });
    services.push(service);
    return service;
  }

  /** Posts `text` in conversation `conversationId` at `url` and waits for the answer on the event stream. */
  async function chat(url: string, conversationId: string, text: string): Promise<WebEventData[]> {
    const browser = createWebClient(url);
    await browser.session();
    const stream = await openSse(`${url}/api/chat/${conversationId}/events`, { cookie: browser.cookie ?? '' });
    streams.push(stream);
    expect(stream.response.status).toBe(200);
    const posted = await browser.post(`/api/chat/${conversationId}/messages`, { text, id: randomUUID() });
    expect(posted.status).toBeLessThan(300);
    await stream.waitFor((client) => dataOf(client).some((event) => event.type === 'turn' && event.turnState === 'complete'), 15_000);
    return dataOf(stream);
  }

  /** Every key on the cluster carries the `{sb}` tag (the default prefix on a cluster), so all are in its slot. */
  async function expectEveryKeyUnderSb(): Promise<void> {
    const keys: string[] = [];
    for await (const batch of scanKeys(redis, '*')) keys.push(...batch);
    expect(keys.filter((key) => !key.startsWith('{sb}:'))).toEqual([]);
    expect(keys.some((key) => key.startsWith('{sb}:inbound:'))).toBe(true);
    expect(keys.some((key) => key.startsWith('{sb}:web:'))).toBe(true);
    const slots = new Set(await Promise.all(keys.map(async (key) => await redis.cluster('KEYSLOT', key))));
    expect([...slots]).toEqual([await redis.cluster('KEYSLOT', '{sb}')]);
  }

  it('answers a web chat message with one process (role all)', async () => {
    const service = await start('all');
    const events = await chat(service.url ?? '', 'c-all', 'hello cluster');
    expect(events.flatMap((event) => (event.part?.text === undefined ? [] : [event.part.text]))).toContain('echo: hello cluster');
    await expectEveryKeyUnderSb();
  });

  it('answers with a web process and two worker processes sharing the cluster', async () => {
    const web = await start('web');
    await start('worker');
    await start('worker');
    const texts = ['one', 'two', 'three'];
    const answers = await Promise.all(texts.map((text) => chat(web.url ?? '', `c-split-${text}`, text)));
    for (const [index, text] of texts.entries()) {
      expect(answers[index]?.flatMap((event) => (event.part?.text === undefined ? [] : [event.part.text]))).toContain(`echo: ${text}`);
    }
    await expectEveryKeyUnderSb();
  });

  it('doctor asks every master for its version and eviction policy', async () => {
    let printed = '';
    await runDoctor(env, { write: (text: string) => { printed += text; } }, []);
    expect(printed).toMatch(/redis\s+OK\s+REDIS_URL \(127\.0\.0\.1:\d+(, 127\.0\.0\.1:\d+)*\) is a Redis Cluster of 3 masters, Redis \d+\.\d+\.\d+, noeviction/);
  });
});
