import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { periodWindow } from '../../src/runtime/budgets/budget-periods.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { lastUserText, part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';
import type { WebClient } from '../web/web-client.ts';

/**
 * Budgets across worker processes on one Redis: `budget-app` gives each conversation 1000 tokens a
 * day, the fake model reports 400 tokens a call, and two worker processes take the turns (a web
 * process takes the messages). Every conversation gets three answers (800 tokens spent when the
 * third starts, 1200 after it: one turn past the limit, no more), then refusals, also after the
 * workers are replaced by a new one: the counters live in Redis.
 */
const appDir = fileURLToPath(new URL('../fixtures/budget-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
let workers: WorkerChild[] = [];

function workerConfig(): Record<string, unknown> {
  return { redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 5000, jobLockMs: 5000 };
}

beforeAll(async () => {
  sb().fake.respondWith((request) => ({ ...reply(respond([part('response', `echo ${lastUserText(request)}`)], 'complete')), usage: { inputTokens: 300, outputTokens: 100 } }));
  workers = await Promise.all([0, 1].map(() => startWorker(workerConfig())));
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

const CONVERSATIONS = Array.from({ length: 6 }, (_, index) => `w-${String(index)}`);
const MESSAGES = 5;
/** The browser (sender) of each conversation: a conversation belongs to the browser that opened it. */
const browsers = new Map<string, WebClient>();

/** The model calls that answered a message of `conversation` (its text is `<conversation> m<n>`). */
function answeredCalls(conversation: string): number {
  return sb().fake.messageRequests.filter((request) => lastUserText(request).startsWith(`${conversation} m`)).length;
}

function partTypes(events: readonly StoredWebChatEvent[]): string[] {
  return events.flatMap(({ event }) => (event.type === 'part' ? [event.part.metadata.partType] : []));
}

function dayCounter(conversation: string): Promise<Record<string, string>> {
  const sessionId = sessionIdOf('default', 'web', conversation);
  return sb().redis().hgetall(`${sb().prefix}:budget:conversation:${sessionId}:d:${periodWindow('day', Date.now()).id}`);
}

describe('budgets across worker processes', () => {
  it('each conversation stops at its limit, overshooting by one turn at most, with both workers taking turns', async () => {
    // Each conversation has its own browser (sender), so the senders' turn rate stays out of it.
    await Promise.all(
      CONVERSATIONS.map(async (conversation) => {
        const browser = sb().client();
        browsers.set(conversation, browser);
        for (let index = 0; index < MESSAGES; index += 1) {
          expect((await sb().post(conversation, `${conversation} m${String(index)}`, undefined, browser)).status).toBe(202);
        }
      }),
    );
    const workersSeen = new Set<string>();
    for (const conversation of CONVERSATIONS) {
      const events = await sb().settled(conversation, MESSAGES, 60_000);
      expect(partTypes(events), conversation).toEqual(['response', 'response', 'response', 'error', 'error']);
      expect(answeredCalls(conversation), conversation).toBe(3);
      expect(await dayCounter(conversation)).toEqual({ tokens: '1200', calls: '3' });
      for (const entry of await sb().log(conversation)) if (entry.type === 'turn_started') workersSeen.add(String(entry.data['worker']));
    }
    expect(workersSeen.size).toBe(2);
    expect(sb().fake.problems).toEqual([]);
  }, 120_000);

  it('a new worker process after a restart still refuses: the counters are in Redis', async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [await startWorker(workerConfig())];
    const [conversation = ''] = CONVERSATIONS;
    const calls = sb().fake.messageRequests.length;
    expect((await sb().post(conversation, `${conversation} again`, undefined, browsers.get(conversation))).status).toBe(202);
    const events = await sb().settled(conversation, MESSAGES + 1, 30_000);
    expect(partTypes(events).at(-1)).toBe('error');
    expect(sb().fake.messageRequests.length).toBe(calls);
    // A fresh conversation is still answered by the new worker.
    expect((await sb().post('w-fresh', 'w-fresh m0', undefined, sb().client())).status).toBe(202);
    expect(partTypes(await sb().settled('w-fresh', 1, 30_000))).toEqual(['response']);
  }, 120_000);
});
