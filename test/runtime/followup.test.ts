import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { settledTurns, useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

describe('messages that arrive mid-turn (followup mode)', () => {
  it('wait for a new turn after the running one', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let started = false;
    sb().fake.respondWith(
      scenarioScript({
        slow: [async () => { started = true; await gate; return reply(respond([part('response', 'First done.')], 'complete')); }],
        next: [(call) => {
          expect(call.texts).toContain('first #slow');
          return reply(respond([part('response', 'Second done.')], 'complete'));
        }],
      }),
    );
    await sb().post('c-follow', 'first #slow');
    const isStarted = (): boolean => started;
    while (!isStarted()) await new Promise((resolve) => setTimeout(resolve, 20));
    await sb().post('c-follow', 'second #next');
    release();
    const events = await sb().settled('c-follow', 2);
    expect(settledTurns(events)).toHaveLength(2);
    const texts = events.flatMap(({ event }) => (event.type === 'part' ? [event.part.text] : []));
    expect(texts).toEqual(['First done.', 'Second done.']);
  });
});
