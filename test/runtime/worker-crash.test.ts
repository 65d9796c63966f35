import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
let workers: WorkerChild[] = [];

beforeAll(async () => {
  workers = await Promise.all(
    [0, 1].map(() => startWorker({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 2000, jobLockMs: 2000 })),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

describe('a worker killed with SIGKILL mid-turn', () => {
  it('the turn completes on another worker and no part is delivered twice', async () => {
    let attempts = 0;
    sb().fake.respondWith(
      scenarioScript({
        crash: [
          () => {
            attempts += 1;
            // The first attempt streams its ack at once, then crawls: the test kills the worker meanwhile.
            return { ...reply(respond([part('ack', 'Working on it.')], 'awaiting'), toolCall('lookup', { q: 'crash' })), eventDelayMs: attempts === 1 ? 1500 : 0 };
          },
          () => reply(respond([part('response', 'Finished after the crash.')], 'complete')),
        ],
      }),
    );
    await sb().post('c-crash', 'do the long thing #crash');

    let victim: WorkerChild | undefined;
    const deadline = Date.now() + 30_000;
    while (victim === undefined && Date.now() < deadline) {
      const events = await sb().events('c-crash');
      const acked = events.some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'ack');
      const started = (await sb().log('c-crash')).find((entry) => entry.type === 'turn_started');
      if (acked && started !== undefined) victim = workers.find((worker) => String(started.data['worker']).endsWith(`:${worker.pid}`));
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (victim === undefined) throw new Error('no worker took the turn');
    await victim.kill();

    const events = await sb().settled('c-crash', 1, 60_000);
    const parts = events.flatMap(({ event }) => (event.type === 'part' ? [{ id: event.partId, type: event.part.metadata.partType, text: event.part.text }] : []));
    expect(parts.map((p) => [p.type, p.text])).toEqual([
      ['ack', 'Working on it.'],
      ['response', 'Finished after the crash.'],
      ['domain-data', undefined],
    ]);
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
    const log = await sb().log('c-crash');
    const resumed = log.find((entry) => entry.type === 'turn_resumed');
    expect(resumed).toBeDefined();
    expect(String(resumed?.data['worker'])).not.toMatch(new RegExp(`:${victim.pid}$`));
    expect(attempts).toBe(2);
  }, 90_000);
});
