/**
 * Separate worker processes survive Redis going away: after Redis is shut down or killed and
 * started again, the same processes (no restart) take the next message and answer it. And a
 * worker told to stop while Redis is down stops, instead of waiting for Redis for ever.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';
import { echoModel, postMessage, responses, untilReady } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis();
const sb = useSwitchboard({ appDir, redisUrl: () => redis().url, role: 'web' });
let workers: WorkerChild[] = [];

beforeAll(async () => {
  workers = await Promise.all(
    [0, 1].map(() => startWorker({ redisUrl: redis().url, modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 5000, jobLockMs: 5000 })),
  );
}, 60_000);

afterAll(async () => {
  // Clean-up, not a check: a worker still running 15 s after its SIGTERM is killed, so the file's
  // servers go down either way (once, in CI, a worker told to stop just after Redis came back had
  // not exited 30 s later). Stopping while Redis is down is the second test's question.
  await Promise.all(workers.map((worker) => worker.stop({ killAfterMs: 15_000 })));
}, 30_000);

/** Keeps Redis away for a while: long enough for the workers' blocked commands to fail and back off. */
const away = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3_000));

/** Waits until the web process is ready, posts, and waits for the answer. */
async function answered(conversation: string, text: string): Promise<string[]> {
  await untilReady(sb().url);
  const posted = await postMessage(sb().browser, conversation, text, `m-${conversation}`);
  expect(posted.status, posted.body).toBe(202);
  return responses(await sb().settled(conversation, 1, 30_000));
}

describe('worker processes and a Redis that goes away', () => {
  it('keep answering after Redis is shut down and after it is killed, without being restarted', async () => {
    sb().fake.respondWith(echoModel);
    await sb().browser.session();
    expect(await answered('c-w-before', 'before')).toEqual(['Echo: before']);
    const pids = workers.map((worker) => worker.pid);

    await redis().stop();
    await away();
    await redis().start();
    expect(await answered('c-w-term', 'after a shutdown')).toEqual(['Echo: after a shutdown']);

    await redis().kill();
    await away();
    await redis().start();
    expect(await answered('c-w-kill', 'after a kill')).toEqual(['Echo: after a kill']);

    for (const worker of workers) expect(worker.process.exitCode, `worker ${String(worker.pid)} exited`).toBeNull();
    expect(workers.map((worker) => worker.pid)).toEqual(pids);
  }, 90_000);

  it('stop when told to (SIGTERM) while Redis is down, instead of waiting for it', async () => {
    const [worker] = workers;
    if (worker === undefined) throw new Error('no worker');
    await redis().stop();
    try {
      let stopped = false;
      const stopping = worker.stop().then(() => {
        stopped = true;
      });
      await waitFor(() => stopped, `worker ${String(worker.pid)} exits after SIGTERM while Redis is down`, 20_000, 50);
      await stopping;
    } finally {
      await redis().start();
    }
  }, 60_000);
});
