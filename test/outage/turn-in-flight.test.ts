/**
 * A turn whose model call is under way when Redis is killed (SIGKILL, with `appendfsync always` so
 * every acknowledged write survives) completes exactly once after Redis is back, in the same
 * process: when Redis returns before the model answers, the turn goes on as if nothing happened
 * (one model call); when the model answers into the outage, the turn's writes fail, its job is
 * tried again after Redis is back, the turn resumes from its last saved step (that model call is
 * made again) and its parts are delivered once.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FakeMessageReply } from '../fakes/fake-anthropic-types.ts';
import { lastUserText, part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';
import { postMessage, responses, untilReady } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis({ appendFsync: 'always' });
const sb = useSwitchboard({ appDir, redisUrl: () => redis().url });

/** A model whose first call for `text` waits until the test opens the gate; later calls answer at once. */
function gatedModel(text: string) {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { calls: 0, open: () => { open(); } };
  sb().fake.respondWith(async (request): Promise<FakeMessageReply> => {
    const asked = lastUserText(request);
    if (asked === text) {
      state.calls += 1;
      if (state.calls === 1) await gate;
    }
    return reply(respond([part('response', `Echo: ${asked}`)], 'complete'));
  });
  return state;
}

/** Waits until `conversation`'s turn settles, then checks it was answered `Echo: <text>` once, with no part delivered twice. */
async function expectAnsweredOnce(conversation: string, text: string): Promise<void> {
  const events = await sb().settled(conversation, 1, 40_000);
  expect(responses(events)).toEqual([`Echo: ${text}`]);
  const ids = (await sb().events(conversation)).flatMap(({ event }) => (event.type === 'part' ? [event.partId] : []));
  expect(new Set(ids).size).toBe(ids.length);
}

describe('a turn in flight when Redis is killed', () => {
  it('completes once when Redis is back before the model answers (the model is asked once)', async () => {
    await sb().browser.session();
    const model = gatedModel('slow one');
    expect((await postMessage(sb().browser, 'c-flight-a', 'slow one', 'm-a')).status).toBe(202);
    await waitFor(() => model.calls === 1, 'the model call is under way', 20_000);

    await redis().kill();
    await redis().start();
    await untilReady(sb().url);
    model.open();

    await expectAnsweredOnce('c-flight-a', 'slow one');
    expect(model.calls).toBe(1);
  }, 60_000);

  it('completes once when the model answers while Redis is still down (the step is tried again)', async () => {
    await sb().browser.session();
    const model = gatedModel('slower one');
    expect((await postMessage(sb().browser, 'c-flight-b', 'slower one', 'm-b')).status).toBe(202);
    await waitFor(() => model.calls === 1, 'the model call is under way', 20_000);

    await redis().kill();
    model.open();
    // Give the turn time to meet the outage with the model's answer in hand.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await redis().start();

    await expectAnsweredOnce('c-flight-b', 'slower one');
    // The answer met the outage: that step is asked again once Redis is back, and delivered once.
    expect(model.calls).toBe(2);
  }, 60_000);
});
