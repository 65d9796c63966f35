import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessageRequest } from '../fakes/fake-anthropic-types.ts';
import { useRedis } from '../support/redis.ts';
import { part, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
let workers: WorkerChild[] = [];

beforeAll(async () => {
  workers = await Promise.all(
    [0, 1, 2].map(() => startWorker({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 5000, jobLockMs: 5000 })),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

function lastUserText(request: FakeMessageRequest): string {
  const messages = request.body.messages as unknown as { role: string; content: string | { type: string; text?: string }[] }[];
  for (const message of [...messages].reverse()) {
    if (message.role !== 'user') continue;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const text = blocks.filter((block) => block.type === 'text').at(-1)?.text;
    if (text !== undefined) return text;
  }
  return '';
}

async function inParallel<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await run(item);
      }
    }),
  );
}

describe('per-session order across worker processes', () => {
  it('200 sessions x 10 messages over 3 workers: every message answered once, in order', async () => {
    sb().fake.respondWith((request) => ({ content: [respond([part('response', `echo ${lastUserText(request)}`)], 'complete')], stopReason: 'tool_use' }));
    const conversations = Array.from({ length: 200 }, (_, index) => `order-${index}`);
    await inParallel(conversations, 50, async (conversation) => {
      for (let message = 0; message < 10; message += 1) {
        const posted = await sb().post(conversation, `${conversation} m${message}`);
        expect(posted.status).toBe(202);
      }
    });
    const workersSeen = new Set<string>();
    await inParallel(conversations, 20, async (conversation) => {
      const events = await sb().settled(conversation, 10, 150_000);
      const answers = events.flatMap(({ event }) => (event.type === 'part' ? [event.part.text] : []));
      expect(answers).toEqual(Array.from({ length: 10 }, (_, message) => `echo ${conversation} m${message}`));
      const partIds = events.flatMap(({ event }) => (event.type === 'part' ? [event.partId] : []));
      expect(new Set(partIds).size).toBe(partIds.length);
      for (const entry of await sb().log(conversation)) if (entry.type === 'turn_started') workersSeen.add(String(entry.data['worker']));
    });
    expect(workersSeen.size).toBe(3);
  }, 240_000);
});
