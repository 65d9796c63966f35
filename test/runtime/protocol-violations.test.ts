import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, type ScenarioCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

function delivered(events: readonly StoredWebChatEvent[]): (string | undefined)[] {
  return events.flatMap(({ event }) => (event.type === 'part' ? [event.part.text] : []));
}

/** A scenario: one bad model answer, then a good one; returns what the second call saw. */
async function correctedOnce(conversation: string, bad: () => ReturnType<typeof reply>): Promise<{ second: ScenarioCall; events: StoredWebChatEvent[] }> {
  let second: ScenarioCall | undefined;
  sb().fake.respondWith(
    scenarioScript({
      [conversation]: [
        bad,
        (call) => {
          second = call;
          return reply(respond([part('response', 'Corrected answer.')], 'complete'));
        },
      ],
    }),
  );
  await sb().post(conversation, `go #${conversation}`);
  const events = await sb().settled(conversation);
  if (second === undefined) throw new Error('the model was not called a second time');
  return { second, events };
}

describe('protocol violations are answered, never delivered, and never crash a worker', () => {
  it('free text is logged, not delivered, and answered with a correction', async () => {
    const { second, events } = await correctedOnce('freetext', () => reply({ type: 'text', text: 'Here is my answer in prose!' }));
    expect(delivered(events)).toEqual(['Corrected answer.']);
    expect(second.texts.at(-1)).toMatch(/must call a tool/);
    const log = await sb().log('freetext');
    expect(log.some((entry) => entry.type === 'protocol_violation' && entry.data['kind'] === 'free_text')).toBe(true);
  });

  it('free text beside a tool call is discarded and named in the correction', async () => {
    const { second, events } = await correctedOnce('mixedtext', () =>
      reply({ type: 'text', text: 'Let me think out loud.' }, respond([part('ack', 'On it.')], 'awaiting')),
    );
    expect(delivered(events)).toEqual(['On it.', 'Corrected answer.']);
    expect(second.texts.at(-1)).toMatch(/never shown to anyone/);
  });

  it('an unknown partType gets an is_error tool result naming it', async () => {
    const { second, events } = await correctedOnce('badpart', () => reply(respond([part('answer', 'nope')], 'complete')));
    expect(delivered(events)).toEqual(['Corrected answer.']);
    expect(second.toolResults[0]).toMatchObject({ is_error: true });
    expect(second.toolResults[0]?.content).toContain('Unknown partType "answer"');
  });

  it('passTo without passed gets an is_error tool result', async () => {
    const { second } = await correctedOnce('passtowrong', () => reply(respond([part('response', 'x')], 'complete', { passTo: 'helper' })));
    expect(second.toolResults[0]?.content).toContain('pass_to_without_passed');
  });

  it('an unknown tool gets an is_error tool result listing the real ones', async () => {
    const { second } = await correctedOnce('ghosttool', () => reply(toolCall('teleport', { to: 'mars' })));
    expect(second.toolResults[0]).toMatchObject({ is_error: true });
    expect(second.toolResults[0]?.content).toContain('no tool named "teleport"');
    expect(second.toolResults[0]?.content).toContain('lookup');
  });

  it('invalid tool arguments get an is_error tool result with the path', async () => {
    const { second } = await correctedOnce('badargs', () => reply(toolCall('lookup', { q: 7 })));
    expect(second.toolResults[0]).toMatchObject({ is_error: true });
    expect(second.toolResults[0]?.content).toContain('/q');
  });

  it('after two corrective retries the turn ends in error', async () => {
    let calls = 0;
    sb().fake.respondWith(
      scenarioScript({
        stubborn: [
          () => {
            calls += 1;
            return reply({ type: 'text', text: 'prose again' });
          },
        ],
      }),
    );
    await sb().post('stubborn', 'go #stubborn');
    const events = await sb().settled('stubborn');
    expect(calls).toBe(3);
    const last = events.at(-1)?.event;
    expect(last).toMatchObject({ type: 'turn', turnState: 'error' });
    expect(events.some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'error')).toBe(true);
  });

  it('a model service error ends the turn in error with a message for the person', async () => {
    sb().fake.respondWith(() => ({ error: { status: 400, type: 'invalid_request_error', message: 'bad request' } }));
    await sb().post('outage', 'go #outage');
    const events = await sb().settled('outage');
    expect(delivered(events).at(-1)).toMatch(/unavailable/);
  });
});
