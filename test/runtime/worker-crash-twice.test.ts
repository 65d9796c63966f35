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
  // The default stall count is what is tested: only the leases are shortened.
  workers = await Promise.all(
    [0, 1, 2].map(() => startWorker({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 2000, jobLockMs: 2000 })),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

/** The worker whose pid ends the `worker` field of the first log entry of `type`, polled until it shows. */
async function workerOf(conversation: string, type: 'turn_started' | 'turn_resumed'): Promise<WorkerChild> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const entry = (await sb().log(conversation)).find((each) => each.type === type);
    const found = workers.find((worker) => entry !== undefined && String(entry.data['worker']).endsWith(`:${worker.pid}`));
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ${type} by one of the workers`);
}

describe('a turn whose worker is killed, then the worker that took it over too', () => {
  it('is put back again and completes on the third worker: the job never fails, no part is sent twice', async () => {
    let attempts = 0;
    sb().fake.respondWith(
      scenarioScript({
        twice: [
          () => {
            attempts += 1;
            // The first two attempts stream slowly (0.4 s an event): their ack goes out a few seconds
            // in, and the tool call takes about as long again, while each one's worker is killed.
            return { ...reply(respond([part('ack', 'Working on it.')], 'awaiting'), toolCall('lookup', { q: 'twice' })), eventDelayMs: attempts <= 2 ? 400 : 0 };
          },
          () => reply(respond([part('response', 'Finished after two crashes.')], 'complete')),
        ],
      }),
    );
    await sb().post('c-twice', 'do the long thing #twice');

    const first = await workerOf('c-twice', 'turn_started');
    await first.kill();
    // The resumed turn logs `turn_resumed` when its ack goes out (the log is flushed before it).
    const second = await workerOf('c-twice', 'turn_resumed');
    expect(second).not.toBe(first);
    await second.kill();

    const events = await sb().settled('c-twice', 1, 60_000);
    const parts = events.flatMap(({ event }) => (event.type === 'part' ? [{ id: event.partId, type: event.part.metadata.partType, text: event.part.text }] : []));
    expect(parts.map((each) => [each.type, each.text])).toEqual([
      ['ack', 'Working on it.'],
      ['response', 'Finished after two crashes.'],
      ['domain-data', undefined],
    ]);
    expect(new Set(parts.map((each) => each.id)).size).toBe(parts.length);
    expect(attempts).toBe(3);
    // Put back twice, never failed: a failed job would have left the turn to the rescue's wait (30 s).
    expect(await sb().redis().zcard(`${sb().prefix}:turns:failed`)).toBe(0);
    const resumedBy = (await sb().log('c-twice')).filter((entry) => entry.type === 'turn_resumed').map((entry) => String(entry.data['worker']));
    expect(resumedBy).toHaveLength(2);
    const survivor = workers.find((worker) => worker !== first && worker !== second);
    expect(resumedBy[1]).toMatch(new RegExp(`:${String(survivor?.pid)}$`));
  }, 90_000);
});
