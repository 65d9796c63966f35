import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
const workers: WorkerChild[] = [];

/** Starts `count` more workers; the default stall count is what is tested, only the leases are shortened. */
async function addWorkers(count: number): Promise<void> {
  const started = Array.from({ length: count }, () =>
    startWorker({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 2000, jobLockMs: 2000 }),
  );
  workers.push(...(await Promise.all(started)));
}

beforeAll(() => addWorkers(2), 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

/** The worker whose pid ends the `worker` field of the first log entry of `type` in the conversation, polled until it shows. */
async function workerThatLogged(conversation: string, type: 'turn_started' | 'turn_resumed'): Promise<WorkerChild> {
  let found: WorkerChild | undefined;
  await waitFor(async () => {
    const entry = (await sb().log(conversation)).find((each) => each.type === type);
    found = workers.find((worker) => entry !== undefined && String(entry.data['worker']).endsWith(`:${worker.pid}`));
    return found !== undefined;
  }, `a worker logged ${type} in ${conversation}`, 30_000, 20);
  if (found === undefined) throw new Error(`no ${type} by one of the workers`);
  return found;
}

/**
 * A scenario whose first model call acks and calls a tool, streamed slowly (`delayMs` an event) for
 * its first `slowAttempts` attempts, so a test can kill the worker meanwhile; the next call answers.
 */
function crawlingScenario(tag: string, answer: string, slowAttempts: number, delayMs: number): { readonly attempts: () => number } {
  let attempts = 0;
  sb().fake.respondWith(
    scenarioScript({
      [tag]: [
        () => {
          attempts += 1;
          return { ...reply(respond([part('ack', 'Working on it.')], 'awaiting'), toolCall('lookup', { q: tag })), eventDelayMs: attempts <= slowAttempts ? delayMs : 0 };
        },
        () => reply(respond([part('response', answer)], 'complete')),
      ],
    }),
  );
  return { attempts: () => attempts };
}

/** Waits for the conversation's turn to settle and checks its parts: ack, the answer, the tool's data, each once. */
async function expectAnsweredOnce(conversation: string, answer: string): Promise<void> {
  const events = await sb().settled(conversation, 1, 60_000);
  const parts = events.flatMap(({ event }) => (event.type === 'part' ? [{ id: event.partId, type: event.part.metadata.partType, text: event.part.text }] : []));
  expect(parts.map((each) => [each.type, each.text])).toEqual([
    ['ack', 'Working on it.'],
    ['response', answer],
    ['domain-data', undefined],
  ]);
  expect(new Set(parts.map((each) => each.id)).size).toBe(parts.length);
}

describe('a worker killed with SIGKILL mid-turn', () => {
  it('the turn completes on another worker and no part is delivered twice', async () => {
    // The first attempt acks, then crawls (1.5 s an event): the test kills the worker meanwhile.
    const scenario = crawlingScenario('crash', 'Finished after the crash.', 1, 1500);
    await sb().post('c-crash', 'do the long thing #crash');
    const victim = await workerThatLogged('c-crash', 'turn_started');
    await victim.kill();

    await expectAnsweredOnce('c-crash', 'Finished after the crash.');
    const log = await sb().log('c-crash');
    const resumed = log.find((entry) => entry.type === 'turn_resumed');
    expect(resumed).toBeDefined();
    expect(String(resumed?.data['worker'])).not.toMatch(new RegExp(`:${victim.pid}$`));
    expect(scenario.attempts()).toBe(2);
  }, 90_000);
});

describe('a turn whose worker is killed, then the worker that took it over too', () => {
  it('is put back again and completes on a third worker: the job never fails, no part is sent twice', async () => {
    // Three live workers: the one the test before left, and two more.
    await addWorkers(2);
    // The first two attempts crawl (0.4 s an event): each ack goes out a few seconds in, and the
    // tool call takes about as long again, while each one's worker is killed.
    const scenario = crawlingScenario('twice', 'Finished after two crashes.', 2, 400);
    await sb().post('c-twice', 'do the long thing #twice');
    const first = await workerThatLogged('c-twice', 'turn_started');
    await first.kill();
    // The resumed turn logs `turn_resumed` when its ack goes out (the log is flushed before it).
    const second = await workerThatLogged('c-twice', 'turn_resumed');
    expect(second).not.toBe(first);
    await second.kill();

    await expectAnsweredOnce('c-twice', 'Finished after two crashes.');
    expect(scenario.attempts()).toBe(3);
    // Put back twice, never failed: a failed job would have left the turn to the rescue's wait (30 s).
    expect(await sb().redis().zcard(`${sb().prefix}:turns:failed`)).toBe(0);
    const resumedBy = (await sb().log('c-twice')).filter((entry) => entry.type === 'turn_resumed').map((entry) => String(entry.data['worker']));
    expect(resumedBy).toHaveLength(2);
    expect(resumedBy[1]).not.toMatch(new RegExp(`:(${String(first.pid)}|${String(second.pid)})$`));
  }, 90_000);
});
