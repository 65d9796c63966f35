/**
 * A turn run inline (no queue job: the process that took the message in runs it) survives the
 * death of that process. A process of role `all` takes a web chat message and runs its turn; it is
 * SIGKILLed mid-turn; a worker process finds the orphaned run in the watch set once the dead
 * process's session lock expired, schedules a turn job for it, and resumes the turn from its last
 * saved step. Nothing is lost and no part is delivered twice.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineTurnsKey } from '../../queues/inline-turns.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';
import { createWebClient } from '../web/web-client.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
let inline: WorkerChild | undefined;
let worker: WorkerChild | undefined;

beforeAll(async () => {
  const common = { redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 2000, jobLockMs: 2000 };
  [inline, worker] = await Promise.all([startWorker({ ...common, role: 'all' }), startWorker(common)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([inline?.stop(), worker?.stop()]);
}, 60_000);

describe('a process killed with SIGKILL while it runs a turn inline', () => {
  it('the turn resumes on another worker, found through the watch set, with no part twice', async () => {
    let attempts = 0;
    sb().fake.respondWith(
      scenarioScript({
        inline: [
          () => {
            attempts += 1;
            // The first attempt streams its ack at once, then crawls: the test kills its process meanwhile.
            return { ...reply(respond([part('ack', 'On it.')], 'awaiting'), toolCall('lookup', { q: 'inline' })), eventDelayMs: attempts === 1 ? 1500 : 0 };
          },
          () => reply(respond([part('response', 'Done after the crash.')], 'complete')),
        ],
      }),
    );
    const victim = inline;
    if (victim?.url === undefined) throw new Error('the role-all process serves no URL');
    const browser = createWebClient(victim.url);
    await browser.session();
    expect((await browser.post('/api/chat/c-inline/messages', { text: 'go #inline', id: 'inline-1' })).status).toBe(202);

    // The turn runs in the process that took the message in: no queue job, and its run is watched.
    await waitFor(async () => {
      const acked = (await sb().events('c-inline')).some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'ack');
      const started = (await sb().log('c-inline')).find((entry) => entry.type === 'turn_started');
      return acked && String(started?.data['worker']).endsWith(`:${victim.pid}`);
    }, 'the inline turn to start in the role-all process', 30_000);
    expect(await sb().redis().zcard(inlineTurnsKey(sb().prefix))).toBe(1);
    await victim.kill();

    const events = await sb().settled('c-inline', 1, 60_000);
    const parts = events.flatMap(({ event }) => (event.type === 'part' ? [{ id: event.partId, type: event.part.metadata.partType, text: event.part.text }] : []));
    expect(parts.map((p) => [p.type, p.text])).toEqual([
      ['ack', 'On it.'],
      ['response', 'Done after the crash.'],
      ['domain-data', undefined],
    ]);
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
    const resumed = (await sb().log('c-inline')).find((entry) => entry.type === 'turn_resumed');
    expect(String(resumed?.data['worker'])).toMatch(new RegExp(`:${String(worker?.pid)}$`));
    expect(attempts).toBe(2);
    await waitFor(async () => (await sb().redis().zcard(inlineTurnsKey(sb().prefix))) === 0, 'the watch set to empty');
  }, 90_000);
});
