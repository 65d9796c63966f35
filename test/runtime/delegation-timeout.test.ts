import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, delegationTimeoutMs: 1200 });

describe('a delegated turn whose peer never answers', () => {
  it('ends in error at its deadline, without another message to wake it', async () => {
    sb().fake.respondWith(scenarioScript({ peer: [() => reply(respond([part('progress', 'Asked the hotel agent.')], 'delegated'))] }));
    await sb().post('c-peer', 'ask the hotel #peer');
    const events = await sb().settled('c-peer', 1, 30_000);
    const texts = events.flatMap(({ event }) => (event.type === 'part' ? [[event.part.metadata.partType, event.part.text]] : []));
    expect(texts).toEqual([
      ['progress', 'Asked the hotel agent.'],
      ['error', 'The request timed out while waiting, so nothing more was done.'],
    ]);
    expect(events.at(-1)?.event).toMatchObject({ type: 'turn', turnState: 'error' });
  }, 60_000);
});
