import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { settledTurns, useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('messages that arrive mid-turn (steer, the default)', () => {
  it('are given to the model at its next call in the running turn', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let second: ScenarioCall | undefined;
    let firstCallStarted = false;
    sb().fake.respondWith(
      scenarioScript({
        steer: [
          async () => {
            firstCallStarted = true;
            await gate;
            return reply(respond([part('ack', 'Searching.')], 'awaiting'), toolCall('lookup', { q: 'x' }));
          },
          (call) => {
            second = call;
            return reply(respond([part('response', 'Done, with your extra note.')], 'complete'));
          },
        ],
      }),
    );
    await sb().post('c-steer', 'search something #steer');
    await waitFor(() => firstCallStarted);
    await sb().post('c-steer', 'also: window seat please');
    const pendingKey = `${sb().prefix}:s:${sessionIdOf('default', 'web', 'c-steer')}:pending`;
    await waitFor(async () => (await sb().redis().llen(pendingKey)) === 1);
    release();
    const events = await sb().settled('c-steer');
    expect(second?.texts).toContain('also: window seat please');
    expect(settledTurns(events)).toHaveLength(1);
    expect(sb().fake.messageRequests.filter((request) => JSON.stringify(request.body.messages).includes('#steer'))).toHaveLength(2);
  });
});

describe('inbound de-duplication', () => {
  it('a redelivered message (same client id) produces no second turn', async () => {
    let calls = 0;
    sb().fake.respondWith(scenarioScript({ dedupe: [() => { calls += 1; return reply(respond([part('response', 'Once.')], 'complete')); }] }));
    const first = await sb().post('c-dedupe', 'hello #dedupe', 'client-msg-1');
    const again = await sb().post('c-dedupe', 'hello #dedupe', 'client-msg-1');
    expect(first).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(again).toMatchObject({ status: 202, body: { duplicate: true } });
    await sb().settled('c-dedupe');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(1);
    const events = await sb().events('c-dedupe');
    expect(events.filter(({ event }) => event.type === 'message')).toHaveLength(1);
  });
});

describe('prompt caching and history', () => {
  it('marks the stable prefix and the history, so turn N+1 re-reads turn N from the cache', async () => {
    sb().fake.respondWith(scenarioScript({ cache: [() => reply(respond([part('response', 'First answer.')], 'complete'))], cache2: [() => reply(respond([part('response', 'Second answer.')], 'complete'))] }));
    await sb().post('c-cache', 'first #cache');
    await sb().settled('c-cache', 1);
    await sb().post('c-cache', 'second #cache2');
    await sb().settled('c-cache', 2);
    const requests = sb().fake.messageRequests.filter((request) => JSON.stringify(request.body.messages).includes('#cache'));
    const last = requests.at(-1)?.body;
    expect(last?.tool_choice).toEqual({ type: 'any' });
    const system = last?.system as { cache_control?: unknown }[];
    expect(system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const tools = last?.tools as { name?: string; cache_control?: unknown }[];
    expect(tools[0]?.name).toBe('respond');
    expect(tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const history = JSON.stringify(last?.messages);
    expect(history).toContain('first #cache');
    expect(history).toContain('First answer.');
    expect(history).toContain('"cache_control":{"type":"ephemeral"}');
  });
});
