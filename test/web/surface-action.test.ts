/**
 * A Button of a surface, pressed in the web chat, through the running service: a turn delivers an
 * `a2ui-surface` part, the page posts the Button's action, and the next turn's model request holds
 * it as a marked action block (not as typed text) while the session's event log records it.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRedis } from '../support/redis.ts';
import { lastUserText, part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

const surface = {
  data: {
    version: 'v0.9',
    createSurface: { surfaceId: 'flight-results', catalogId: 'https://a2ui.org/specification/v0_9/basic_catalog.json' },
    updateComponents: {
      surfaceId: 'flight-results',
      components: [
        { id: 'root', component: 'Button', child: 'label', action: { event: { name: 'book', context: { flight: 'BA123' } } } },
        { id: 'label', component: 'Text', text: 'Book BA123' },
      ],
    },
  },
  metadata: { partType: 'a2ui-surface' },
};

describe('a surface action in the running service', () => {
  it('reaches the next turn as a marked action block and is in the event log', async () => {
    const seen: string[] = [];
    sb().fake.respondWith(
      scenarioScript({
        flights: [
          () => reply(respond([part('response', 'One flight found.'), surface], 'complete')),
          (call) => {
            seen.push(lastUserText(call.request));
            return reply(respond([part('response', 'Booked BA123.')], 'complete'));
          },
        ],
      }),
    );
    expect((await sb().post('c-surface', 'flights to Lisbon #flights')).status).toBe(202);
    const first = await sb().settled('c-surface');
    expect(first.some(({ event }) => event.type === 'part' && event.part.metadata.partType === 'a2ui-surface')).toBe(true);

    const action = { id: 'press-1', surfaceId: 'flight-results', sourceComponentId: 'root', name: 'book', context: { flight: 'BA123' } };
    const posted = await sb().browser.post('/api/chat/c-surface/actions', action);
    expect(posted).toEqual({ status: 202, body: { id: 'web:c-surface:action:press-1', duplicate: false } });
    const unknown = await sb().browser.post('/api/chat/c-surface/actions', { ...action, id: 'press-2', surfaceId: 'hotel-results' });
    expect(unknown.status).toBe(403);
    await sb().settled('c-surface', 2);

    expect(seen).toEqual([
      '[user-action] The person pressed "book" on surface "flight-results" (component "root") in the chat; they did not type this. Action context (JSON): {"flight":"BA123"}',
    ]);
    const injections = (await sb().log('c-surface')).filter((entry) => entry.type === 'injection');
    // Both come from the same browser, verified by its session cookie; the action's text is its short log line.
    const sender = { id: expect.any(String) as unknown, verified: true };
    expect(injections.map((entry) => entry.data)).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^web:c-surface:/) as unknown, kind: 'message', channel: 'web', sender: expect.objectContaining(sender) as unknown, content: { source: 'typed', trusted: true } }) as unknown,
      {
        id: 'web:c-surface:action:press-1',
        kind: 'user-action',
        channel: 'web',
        sender: expect.objectContaining(sender) as unknown,
        receivedAt: expect.any(String) as unknown,
        text: '[action] book',
        content: { source: 'ui-action', trusted: true },
        action: { name: 'book', surfaceId: 'flight-results', sourceComponentId: 'root', context: { flight: 'BA123' } },
      },
    ]);
  });
});
