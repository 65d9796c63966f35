/**
 * A worker told to stop gracefully while a job runs, as Redis goes away: the stop ends instead of
 * waiting for Redis for ever (the job's end, which cannot be recorded, fails with the connection).
 */
import { describe, it } from 'vitest';
import { createInboundQueue, createInboundWorker } from '../../queues/inbound-queue.ts';
import { redisOptions } from '../../queues/redis-connections.ts';
import { sampleInjection } from '../../queues/queue-test-kit.ts';
import { waitFor } from '../support/wait-for.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const redis = useRestartableRedis();

describe('a graceful stop that Redis leaves half-way', () => {
  it('ends once Redis is gone, though it began while Redis was there and a job was running', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => { started = resolve; });
    let finishJob: () => void = () => undefined;
    const jobMayEnd = new Promise<void>((resolve) => { finishJob = resolve; });
    const worker = createInboundWorker({
      connection: redisOptions(redis().url),
      prefix: 'stop-race',
      process: async () => {
        started();
        await jobMayEnd;
        throw new Error('the job ends without Redis');
      },
    });
    const queue = createInboundQueue({ connection: redisOptions(redis().url), prefix: 'stop-race' });
    await queue.enqueue(sampleInjection('i-stop-race'));
    await queue.close();
    await running;

    let stopped = false;
    const stopping = worker.close().then(() => { stopped = true; });
    await redis().kill();
    finishJob();
    await waitFor(() => stopped, 'the worker\'s graceful stop ends after Redis went away', 20_000, 50);
    await stopping;
  }, 40_000);
});
