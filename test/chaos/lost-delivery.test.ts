/**
 * Exactly once where the provider can be asked: outbound workers in their own processes send
 * through the real queue, ledger and provider SDK to a fake provider (Slack, Twilio), and are
 * SIGKILLed at the two moments where the outcome of a send is lost:
 *
 * - between the intent and the provider call: the ledger holds `sending` and the provider has
 *   nothing (the worker is parked inside `send`, see `lost-delivery-worker.ts`);
 * - between the provider taking the message and the receipt: the provider has stored and lists it,
 *   but holds its answer, so the worker dies without hearing of it.
 *
 * A worker started after each kill takes the stalled job back and asks the provider. Every
 * delivery, killed or not, must reach the provider exactly once. Each kill waits for what can be
 * seen (the ledger's state, the provider's stored message and held answer, the jobs' states),
 * never for a time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { createDeliveryLedger, type LedgerEntry } from '../../queues/delivery-ledger.ts';
import { outboundJobId } from '../../queues/job-ids.ts';
import { createOutbound, outboundQueueName } from '../../queues/outbound-queue.ts';
import { useTestResources } from '../../queues/queue-test-kit.ts';
import { untilReady } from '../support/child-ready.ts';
import { useKeyPrefix, useRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { slackProvider, twilioProvider, type ChaosProvider } from './lost-delivery-providers.ts';
import type { LostDeliveryWorkerConfig } from './lost-delivery-worker.ts';

const SCRIPT = fileURLToPath(new URL('./lost-delivery-worker.ts', import.meta.url));
const ROUNDS = 3;
const BACKGROUND_PER_ROUND = 3;

const redisUrl = useRedis();
const prefix = useKeyPrefix(redisUrl);
const resources = useTestResources(redisUrl);
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** Starts a worker process; its `kill` SIGKILLs it and waits until it is gone. */
async function startWorker(provider: ChaosProvider, parkKeys: readonly string[]): Promise<{ kill(): Promise<void> }> {
  const config: LostDeliveryWorkerConfig = { redisUrl: redisUrl(), prefix: prefix(), provider: provider.config, parkKeys, jobLockMs: 1000, stalledIntervalMs: 250, settleMs: 200 };
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  await untilReady(child, 'outbound worker', () => stderr);
  return {
    async kill() {
      child.kill('SIGKILL');
      await exited;
      running.delete(child);
    },
  };
}

describe.each([
  { name: 'Slack (posts found by their metadata)', start: slackProvider },
  { name: 'Twilio (messages found in the Messages list)', start: twilioProvider },
])('outbound workers killed mid-send, $name', ({ start }) => {
  it('deliver every message exactly once: 0 lost, 0 twice', async () => {
    const provider = await start();
    resources.track(provider);
    const redis = resources.redis('producer');
    const producer = resources.track(createOutbound({ connection: redis, prefix: prefix(), senders: { [provider.channel]: { send: () => Promise.reject(new Error('only enqueues')) } } }));
    const queue = resources.track(new Queue(outboundQueueName(provider.channel), { connection: redis, prefix: prefix() }));
    const ledger = createDeliveryLedger({ redis, prefix: prefix() });
    const state = async (key: string): Promise<LedgerEntry['state'] | undefined> => (await ledger.read(key))?.state;
    const completed = async (keys: readonly string[]): Promise<boolean> =>
      (await Promise.all(keys.map((key) => queue.getJobState(outboundJobId(key))))).every((found) => found === 'completed');
    const all: string[] = [];
    const beforeProvider: string[] = [];
    const afterProvider: string[] = [];
    const enqueue = async (key: string): Promise<void> => {
      all.push(key);
      await producer.enqueue(provider.delivery(key, all.length));
    };

    // Each kill waits until the worker runs no other delivery (it runs several at once), so that no
    // delivery is cut short twice: BullMQ fails a job that stalls a second time.
    for (let round = 0; round < ROUNDS; round += 1) {
      // Killed between the intent and the provider call.
      const parked = `round-${String(round)}-before-provider`;
      const first = await startWorker(provider, [parked]);
      for (let index = 0; index < BACKGROUND_PER_ROUND; index += 1) await enqueue(`round-${String(round)}-background-${String(index)}`);
      await enqueue(parked);
      const others = all.filter((key) => key !== parked);
      await waitFor(async () => (await state(parked)) === 'sending' && (await completed(others)), `${parked} has its intent recorded, the rest are done`, 30_000);
      expect(provider.count(parked)).toBe(0);
      await first.kill();
      beforeProvider.push(parked);

      // Killed after the provider took the message, before its answer came back.
      const second = await startWorker(provider, []);
      await waitFor(() => completed([parked]), `${parked} is taken back and sent`, 30_000);
      const held = `round-${String(round)}-after-provider`;
      provider.holdAnswerTo(held);
      await enqueue(held);
      await waitFor(() => provider.count(held) === 1 && provider.heldCount() === 1, `the provider holds ${held} and its answer`, 30_000);
      expect(await state(held)).toBe('sending');
      await second.kill();
      provider.releaseHeld();
      afterProvider.push(held);
    }

    const last = await startWorker(provider, []);
    await waitFor(() => completed(all), 'every delivery completed', 60_000);
    await last.kill();

    const counts = all.map((key) => provider.count(key));
    expect({ deliveries: all.length, lost: counts.filter((count) => count === 0).length, twice: counts.filter((count) => count > 1).length }).toEqual({
      deliveries: ROUNDS * (BACKGROUND_PER_ROUND + 2),
      lost: 0,
      twice: 0,
    });
    expect(await queue.getJobCounts('failed')).toEqual({ failed: 0 });
    expect(await createDeliveryFailures({ redis, prefix: prefix() }).list()).toEqual([]);
    // Not found at the provider, so sent under a new intent; found there, so completed without a send.
    for (const key of beforeProvider) expect(await ledger.read(key)).toMatchObject({ state: 'sent', sendCalls: 2 });
    for (const key of afterProvider) expect(await ledger.read(key)).toMatchObject({ state: 'sent', sendCalls: 1, receipt: { details: { foundAtProvider: true } } });
  }, 180_000);
});
