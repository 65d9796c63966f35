/**
 * `/readyz` follows Redis: red within a few seconds of Redis going away (shut down or killed),
 * green again once it is back, with no restart of the process; `/healthz` stays green throughout,
 * and the process (role `all`: its own workers) answers messages again afterwards.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { echoModel, postMessage, responses, timedFetch } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis();
const sb = useSwitchboard({ appDir, redisUrl: () => redis().url });

const status = async (path: string): Promise<number> => (await timedFetch(`${sb().url}${path}`)).status;

describe.each([
  { how: 'shut down (SIGTERM)', end: () => redis().stop() },
  { how: 'killed (SIGKILL)', end: () => redis().kill() },
])('Redis $how', ({ how, end }) => {
  it('turns /readyz red and green again without a restart; /healthz stays green; messages are answered after', async () => {
    sb().fake.respondWith(echoModel);
    await sb().browser.session();
    const conversation = `c-ready-${how.includes('KILL') ? 'kill' : 'term'}`;
    expect(await status('/readyz')).toBe(200);

    await end();
    await waitFor(async () => (await status('/readyz')) === 503, '/readyz answers 503 after Redis went away', 10_000, 100);
    const red = await timedFetch(`${sb().url}/readyz`);
    expect(JSON.parse(red.body)).toMatchObject({ ready: false, checks: { redis: expect.not.stringMatching(/^ok$/) as unknown } });
    expect(await status('/healthz')).toBe(200);

    await redis().start();
    await waitFor(async () => (await status('/readyz')) === 200, '/readyz answers 200 again after Redis came back', 15_000, 100);
    expect(await status('/healthz')).toBe(200);

    const posted = await postMessage(sb().browser, conversation, `after Redis was ${how}`, 'm-after');
    expect(posted.status, posted.body).toBe(202);
    expect(responses(await sb().settled(conversation, 1, 30_000))).toEqual([`Echo: after Redis was ${how}`]);
  }, 60_000);
});
