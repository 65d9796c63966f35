/**
 * Two switchboard services on loopback: a concierge whose actor asks a second service's agent over
 * A2A (the `ask_flights` tool, through `@a2a-js/sdk`'s client), and that second service answering
 * it as a peer. The person on the concierge's web chat sees the turn delegated and the flights
 * agent's data come back into the concierge's envelope.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall, unmarked } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const TOKEN = 'caller-token-0123456789abcdef';
const redisUrl = useRedis();

/** The flights service: the peer app, which knows the concierge as its peer `caller`. */
const flights = useSwitchboard({
  appDir: fileURLToPath(new URL('../fixtures/peer-app/', import.meta.url)),
  redisUrl,
  env: { PEER_CALLER_TOKEN: TOKEN, PEER_OTHER_TOKEN: 'other-token-0123456789abcdef' },
  selfAddressed: true,
});

/** The concierge's app, written once the flights service's URL is known. */
const conciergeDir = mkdtempSync(join(tmpdir(), 'sb-concierge-'));
beforeAll(() => {
  mkdirSync(join(conciergeDir, 'actors'));
  writeFileSync(join(conciergeDir, 'actors', 'concierge.yaml'), 'name: concierge\nsystem: You help people. Ask the flights agent about flights.\ntools: [ask_flights]\n');
  writeFileSync(
    join(conciergeDir, 'switchboard.yaml'),
    [
      'app: concierge-app',
      'entryActor: concierge',
      'peers:',
      '  - id: flights',
      '    name: Flights agent',
      '    token: env:PEER_FLIGHTS_TOKEN',
      `    url: ${flights().url}`,
      '    timeoutSeconds: 20',
      '',
    ].join('\n'),
  );
});
const concierge = useSwitchboard({ appDir: conciergeDir, redisUrl, env: { PEER_FLIGHTS_TOKEN: TOKEN } });

describe('delegation to a second switchboard over A2A', () => {
  it('the concierge asks the flights agent; its data and llm-context come back as the tool result', async () => {
    flights().fake.respondWith((request, index) => {
      const tools = (request.body.tools ?? []).map((tool) => ('name' in tool ? tool.name : ''));
      if (tools.includes('write_llm_context')) {
        return { content: [{ type: 'tool_use', id: 'toolu_ctx', name: 'write_llm_context', input: { text: 'BA2043 is the only direct flight; it leaves at 08:45.' } }], stopReason: 'tool_use' };
      }
      return scenarioScript({
        flights: [
          () => reply(respond([part('ack', 'Searching flights.')], 'awaiting')),
          () => reply(respond([part('response', 'One direct flight.'), { data: { flights: [{ flightNumber: 'BA2043' }] }, metadata: { partType: 'domain-data' } }], 'complete')),
        ],
      })(request, index);
    });
    const results: string[] = [];
    concierge().fake.respondWith(scenarioScript({
      corfu: [
        () => reply(toolCall('ask_flights', { text: 'Direct flights to Corfu on 15 August? #flights' })),
        (call) => {
          results.push(...call.toolResults.map((result) => result.content));
          return reply(respond([part('response', `The flights agent says: ${call.toolResults[0]?.content ?? ''}`)], 'complete'));
        },
      ],
    }));
    const posted = await concierge().post('corfu-trip', 'Find me a flight to Corfu #corfu');
    expect(posted.status).toBe(202);
    const events = await concierge().settled('corfu-trip', 1, 30_000);
    const [result] = results;
    expect(result).toBeDefined();
    // The peer's answer is outside content: the model reads it marked as such.
    expect(result).toMatch(/^<untrusted_content source="tool" tool="ask_flights">\n/);
    const parsed = JSON.parse(unmarked(result ?? '{}')) as { state: string; text: string; peer: string; domainData?: { data: unknown } };
    expect(parsed).toMatchObject({ state: 'completed', peer: 'flights', text: 'BA2043 is the only direct flight; it leaves at 08:45.' });
    expect(parsed.domainData?.data).toEqual({ flights: [{ flightNumber: 'BA2043' }] });
    expect(events.some(({ event }) => event.type === 'turn' && event.turnState === 'delegated')).toBe(true);
    // The flights agent's ack reached the person while the concierge waited, as progress.
    const progress = events.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'progress' ? [event.part.text] : []));
    expect(progress).toContain('Searching flights.');
    const envelopeData = events.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'domain-data' ? [event.part.data] : []));
    expect(envelopeData).toContainEqual({ 'peer:flights': { flights: [{ flightNumber: 'BA2043' }] } });
  });

  it('a peer that asks back (input-required) becomes a clarify to our person, whose answer goes back in the same task', async () => {
    flights().fake.respondWith(scenarioScript({
      fclarify: [
        (call) => (call.texts.some((text) => text.includes('Gatwick'))
          ? reply(respond([part('response', 'From Gatwick: BA2043 at 08:45.')], 'complete'))
          : reply(respond([part('clarify', 'Gatwick or Heathrow?')], 'clarifying'))),
      ],
    }));
    let open: { contextId: string; taskId: string; question: string } | undefined;
    concierge().fake.respondWith(scenarioScript({
      trip: [
        () => reply(toolCall('ask_flights', { text: 'Flights to Corfu #fclarify' })),
        (call) => {
          open = JSON.parse(unmarked(call.toolResults[0]?.content ?? '{}')) as { contextId: string; taskId: string; question: string };
          return reply(respond([part('clarify', open.question)], 'clarifying'));
        },
      ],
      trip2: [
        () => reply(toolCall('ask_flights', { text: 'Gatwick #fclarify', contextId: open?.contextId, taskId: open?.taskId })),
        (call) => reply(respond([part('response', (JSON.parse(unmarked(call.toolResults[0]?.content ?? '{}')) as { text: string }).text)], 'complete')),
      ],
    }));
    await concierge().post('corfu-ask', 'A flight to Corfu please #trip');
    const asked = await concierge().settled('corfu-ask', 1, 30_000);
    expect(open?.question).toBe('Gatwick or Heathrow?');
    expect(asked.some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'clarify' && event.part.text === 'Gatwick or Heathrow?')).toBe(true);
    await concierge().post('corfu-ask', 'Gatwick #trip2');
    const answered = await concierge().settled('corfu-ask', 2, 30_000);
    const texts = answered.flatMap(({ event }) => (event.type === 'part' && event.part.metadata.partType === 'response' ? [event.part.text] : []));
    expect(texts.at(-1)).toBe('From Gatwick: BA2043 at 08:45.');
    const task = await flights().redis().hgetall(`${flights().prefix}:a2a:task:${open?.taskId ?? ''}`);
    expect(Object.keys(task).length).toBeGreaterThan(0);
  });
});
