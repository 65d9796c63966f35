/**
 * `SWITCHBOARD_TURN_CONCURRENCY` caps the turns one process runs at once. With 2, four
 * conversations whose model calls are held never have more than two calls in flight: the other
 * two sessions wait, without a turn begun, until a slot frees; then every message is answered
 * once. Real Redis, the real service over the web chat, the fake model.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { echoModel, responses } from '../outage/outage-kit.ts';
import { useRedis } from '../support/redis.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl, env: { SWITCHBOARD_TURN_CONCURRENCY: '2' } });

const CONVERSATIONS = ['c-cap-1', 'c-cap-2', 'c-cap-3', 'c-cap-4'];

it('runs at most SWITCHBOARD_TURN_CONCURRENCY turns at once, and the rest once a slot frees', async () => {
  let inFlight = 0;
  let most = 0;
  let holding = true;
  const held: (() => void)[] = [];
  sb().fake.respondWith(async (request, callIndex) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    if (holding) await new Promise<void>((release) => held.push(release));
    inFlight -= 1;
    return echoModel(request, callIndex);
  });
  try {
    await sb().browser.session();
    const posted = await Promise.all(CONVERSATIONS.map((conversation) => sb().post(conversation, `hello from ${conversation}`)));
    expect(posted.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);

    await waitFor(() => held.length >= 2, 'two model calls are held');
    const begun = await Promise.all(CONVERSATIONS.map((conversation) => sb().redis().exists(`${sb().prefix}:s:${sessionIdOf('default', 'web', conversation)}:turn`)));
    expect(begun.reduce((sum, one) => sum + one, 0)).toBe(2);

    // Each call let go frees a slot for a waiting session, whose call is held in turn.
    for (let released = 0; released < CONVERSATIONS.length; released += 1) {
      await waitFor(() => held.length > 0, 'a model call to let go');
      held.shift()?.();
    }
    for (const conversation of CONVERSATIONS) {
      expect(responses(await sb().settled(conversation))).toEqual([`Echo: hello from ${conversation}`]);
    }
    expect(most).toBe(2);
  } finally {
    // Whatever failed above, no call is left held: the service can close.
    holding = false;
    for (const release of held.splice(0)) release();
  }
}, 30_000);
