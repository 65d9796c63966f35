import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

function partsOf(events: readonly StoredWebChatEvent[]): { partType: string; text: string | undefined; turnState: string; partId: string }[] {
  return events.flatMap(({ event }) =>
    event.type === 'part' ? [{ partType: event.part.metadata.partType, text: event.part.text, turnState: event.turnState, partId: event.partId }] : [],
  );
}

function turnStates(events: readonly StoredWebChatEvent[]): string[] {
  return events.flatMap(({ event }) => (event.type === 'turn' ? [event.turnState] : []));
}

describe('turn states through the whole runtime (web chat → inbound → turns → model → web stream)', () => {
  it('complete: one respond() call settles the turn and the response reaches the chat', async () => {
    sb().fake.respondWith(scenarioScript({ simple: [() => reply(respond([part('response', 'Your tasks: T12, T15.')], 'complete'))] }));
    const posted = await sb().post('c-complete', 'what are my tasks? #simple');
    expect(posted.status).toBe(202);
    const events = await sb().settled('c-complete');
    expect(partsOf(events).map((p) => [p.partType, p.text])).toEqual([['response', 'Your tasks: T12, T15.']]);
    expect(turnStates(events).at(-1)).toBe('complete');
    expect(events[0]?.event.type).toBe('message');
  });

  it('multi-call: ack and a tool call in one response, the ack is delivered before the tool result reaches the model', async () => {
    let ackSeenBeforeSecondCall = false;
    sb().fake.respondWith(
      scenarioScript({
        multi: [
          () => reply(respond([part('ack', 'Looking that up.')], 'awaiting'), toolCall('lookup', { q: 'flights' })),
          async (call) => {
            ackSeenBeforeSecondCall = partsOf(await sb().events('c-multi')).some((p) => p.partType === 'ack');
            expect(call.toolResults[0]?.content).toContain('Delivered.');
            expect(call.toolResults[1]?.content).toContain('answer to flights');
            return reply(respond([part('thinking', 'Filtering.')], 'awaiting'));
          },
          () => reply(respond([part('response', 'Two options.'), { data: { picked: 1 }, metadata: { partType: 'domain-data' } }], 'complete')),
        ],
      }),
    );
    await sb().post('c-multi', 'find flights #multi');
    const events = await sb().settled('c-multi');
    expect(ackSeenBeforeSecondCall).toBe(true);
    const parts = partsOf(events);
    expect(parts.map((p) => p.partType)).toEqual(['ack', 'thinking', 'response', 'domain-data']);
    const domain = events.find(({ event }) => event.type === 'part' && event.part.metadata.partType === 'domain-data');
    expect(domain?.event.type === 'part' && domain.event.part.data).toMatchObject({ lookup: { q: 'flights', answer: 42 } });
    const log = await sb().log('c-multi');
    const toolCalls = log.filter((entry) => entry.type === 'tool_call');
    expect(toolCalls[0]?.data).toMatchObject({ tool: 'lookup', scope: 'generalist', routing: 'routed', outcome: 'ok' });
    const usage = log.filter((entry) => entry.type === 'model_response').map((entry) => entry.data['usage']);
    expect(usage).toHaveLength(3);
  });

  it('clarifying: the question is delivered and the turn ends without an envelope', async () => {
    sb().fake.respondWith(scenarioScript({ clarify: [() => reply(respond([part('clarify', 'Gatwick or Heathrow?')], 'clarifying'))] }));
    await sb().post('c-clarify', 'book me to Corfu #clarify');
    const events = await sb().settled('c-clarify');
    expect(partsOf(events).map((p) => [p.partType, p.turnState])).toEqual([['clarify', 'clarifying']]);
    expect(turnStates(events).at(-1)).toBe('clarifying');
  });

  it('error: the actor reports a failure and the turn ends in error', async () => {
    sb().fake.respondWith(scenarioScript({ fail: [() => reply(respond([part('error', 'The search service is down.')], 'error'))] }));
    await sb().post('c-error', 'search #fail');
    const events = await sb().settled('c-error');
    expect(partsOf(events).map((p) => p.partType)).toEqual(['error']);
    expect(turnStates(events).at(-1)).toBe('error');
  });

  it('passed: passTo hands the turn to another actor with its own prompt and tool scope', async () => {
    const seen: { system: string; tools: readonly string[] }[] = [];
    sb().fake.respondWith(
      scenarioScript({
        handoff: [
          (call) => {
            seen.push(call);
            return reply(respond([part('thinking', 'Handing over.')], 'passed', { passTo: 'helper' }));
          },
          (call) => {
            seen.push(call);
            return reply(respond([part('response', 'Helper here.')], 'complete'));
          },
        ],
      }),
    );
    await sb().post('c-passed', 'please hand over #handoff');
    const events = await sb().settled('c-passed');
    expect(partsOf(events).map((p) => p.text)).toEqual(['Handing over.', 'Helper here.']);
    expect(seen[0]?.system).toContain('You are the test actor');
    expect(seen[1]?.system).toContain('You are the helper actor');
    expect(seen[1]?.tools).toEqual(['respond', 'lookup']);
    expect(seen[0]?.tools).toContain('finish_a');
  });

  it('suspended from the model is refused: only the runtime suspends a turn', async () => {
    sb().fake.respondWith(
      scenarioScript({
        suspend: [
          () => reply(respond([part('response', 'waiting')], 'suspended')),
          (call) => {
            expect(call.toolResults[0]).toMatchObject({ is_error: true });
            return reply(respond([part('response', 'Done properly.')], 'complete'));
          },
        ],
      }),
    );
    await sb().post('c-suspend', 'go #suspend');
    const events = await sb().settled('c-suspend');
    expect(partsOf(events).map((p) => p.text)).toEqual(['Done properly.']);
  });

  it('delegated: the turn waits for the peer and holds the session', async () => {
    sb().fake.respondWith(scenarioScript({ delegate: [() => reply(respond([part('progress', 'Asked the hotel agent.')], 'delegated'))] }));
    await sb().post('c-delegated', 'ask the hotel #delegate');
    const deadline = Date.now() + 10_000;
    let states: string[] = [];
    while (Date.now() < deadline) {
      states = turnStates(await sb().events('c-delegated'));
      if (states.includes('delegated')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(states).toEqual(['delegated']);
    expect(partsOf(await sb().events('c-delegated')).map((p) => p.partType)).toEqual(['progress']);
  });
});
