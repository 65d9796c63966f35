import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/routed-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

describe('channel routes of switchboard.yaml', () => {
  it('the actor named for the web channel answers it, not the entry actor', async () => {
    const systems: string[] = [];
    sb().fake.respondWith((request) => {
      systems.push(JSON.stringify(request.body.system));
      return reply(respond([part('response', 'Front desk here.')], 'complete'));
    });
    await sb().post('routed', 'hello');
    const events = await sb().settled('routed');
    expect(systems[0]).toContain('You are the front desk for the web chat.');
    expect(events.some(({ event }) => event.type === 'part' && event.actor === 'front')).toBe(true);
  });

  it('a model call that hangs is cut at the turn deadline and the turn ends in error', async () => {
    sb().fake.respondWith(() => ({ ...reply(respond([part('response', 'Too late.')], 'complete')), delayMs: 6000 }));
    await sb().post('hung', 'hello');
    const events = await sb().settled('hung', 1, 20_000);
    const texts = events.flatMap(({ event }) => (event.type === 'part' ? [event.part.text] : []));
    expect(texts).toEqual(['Sorry, this took longer than allowed, so I stopped. Please try again.']);
  }, 30_000);
});
