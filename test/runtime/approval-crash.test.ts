import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createApprovalStore } from '../../src/runtime/approvals/redis-approval-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
const workers: WorkerChild[] = [];
const config = (): Record<string, unknown> => ({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 2000, jobLockMs: 2000 });

beforeAll(async () => {
  workers.push(...(await Promise.all([startWorker(config()), startWorker(config())])));
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

describe('workers killed between the decision and the handler', () => {
  it('the approved handler still runs exactly once', async () => {
    sb().fake.respondWith(
      scenarioScript({
        crashpay: [
          () => reply(respond([part('ack', 'Requesting approval.')], 'awaiting'), toolCall('pay_invoice', { invoice: 'INV-7', amount: 250 })),
          (call) => reply(respond([part('response', `result: ${call.toolResults.at(-1)?.content ?? ''}`)], 'complete')),
        ],
      }),
    );
    await sb().post('apr-crash', 'pay INV-7 #crashpay');
    let approvalId: string | undefined;
    const deadline = Date.now() + 30_000;
    while (approvalId === undefined && Date.now() < deadline) {
      approvalId = (await sb().events('apr-crash')).flatMap(({ event }) =>
        event.type === 'part' && event.part.metadata.partType === 'approval-request' ? [(event.part.data as { approvalId: string }).approvalId] : [],
      )[0];
      if (approvalId === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (approvalId === undefined) throw new Error('no approval request');
    // Every worker dies; the decision is taken while none runs, so its resume job waits for a new one.
    await Promise.all(workers.map((worker) => worker.kill()));
    const decided = await sb().decide(approvalId, 'granted', { conversationId: 'apr-crash' });
    expect(decided.status).toBe(200);
    workers.push(await startWorker(config()), await startWorker(config()));
    const events = await sb().settled('apr-crash', 1, 60_000);
    const answer = events.flatMap(({ event }) => (event.type === 'part' && event.part.text !== undefined ? [event.part.text] : [])).at(-1);
    expect(answer).toContain('"paid":"INV-7"');
    const log = await sb().log('apr-crash');
    expect(log.filter((entry) => entry.type === 'tool_call' && entry.data['tool'] === 'pay_invoice' && entry.data['outcome'] === 'ok')).toHaveLength(1);
    const redis = new Redis(redisUrl());
    try {
      const audit = await createApprovalStore({ redis, prefix: sb().prefix }).audit(approvalId);
      expect(audit.map((entry) => entry.action)).toEqual(['requested', 'granted', 'executed']);
    } finally {
      await redis.quit();
    }
  }, 120_000);
});
