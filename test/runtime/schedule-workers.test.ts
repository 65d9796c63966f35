/**
 * A schedule that ticks every second, declared by a web process and three worker processes on one
 * Redis: each tick starts exactly one turn, whichever worker takes it, and its answer reaches the
 * recipient's conversation once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApp } from '../../src/runtime/app/app-test-fixtures.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerChild } from '../support/worker-processes.ts';

const appDir = writeApp({
  'switchboard.yaml': [
    'app: scheduled',
    'entryActor: main',
    'schedules:',
    '  - { id: digest, cron: "*/1 * * * * *", actor: digest, prompt: Write the digest., to: "web:digest-inbox" }',
  ].join('\n'),
  'actors/main.yaml': 'name: main\nsystem: Answer.\n',
  'actors/digest.yaml': 'name: digest\nsystem: Write digests.\n',
});
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, role: 'web' });
let workers: WorkerChild[] = [];

beforeAll(async () => {
  sb().fake.respondWith(() => reply(respond([part('response', 'Your digest.')], 'complete')));
  workers = await Promise.all([0, 1, 2].map(() => startWorker({ redisUrl: redisUrl(), modelUrl: sb().fake.url, appDir, prefix: sb().prefix, lockTtlMs: 5000, jobLockMs: 5000 })));
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
}, 60_000);

describe('schedules with three worker processes', () => {
  it('each tick makes one turn of the named actor, answered once to the recipient', async () => {
    await waitFor(async () => (await sb().log('digest-inbox')).filter((entry) => entry.type === 'turn_state' && entry.data['turnState'] === 'complete').length >= 4, 'four ticks were answered', 30_000);
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [];
    const log = await sb().log('digest-inbox');
    const ticks = log.filter((entry) => entry.type === 'injection').map((entry) => String(entry.data['id']));
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ticks).size).toBe(ticks.length);
    for (const tick of ticks) expect(tick).toMatch(/^schedule:digest:\d+$/);
    const started = log.filter((entry) => entry.type === 'turn_started');
    expect(started.every((entry) => entry.actor === 'digest')).toBe(true);
    const answers = (await sb().events('digest-inbox')).filter(({ event }) => event.type === 'part' && event.part.text === 'Your digest.');
    const settled = log.filter((entry) => entry.type === 'turn_state' && entry.data['turnState'] === 'complete').length;
    expect(answers.length).toBe(settled);
    expect(new Set(answers.map(({ event }) => (event.type === 'part' ? event.turnId : ''))).size).toBe(answers.length);
  }, 60_000);
});
