/**
 * A message the service gave up delivering is told to the model at the start of the
 * conversation's next turn, through the running service: the note is written where the outbound
 * side writes it, and the turn's begin (which reads the notes' count in its own script) finds it.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDeliveryFailures } from '../../queues/delivery-failures.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

describe('an answer given up for good', () => {
  it('is told to the model with the conversation\'s next message, once', async () => {
    const seen: string[][] = [];
    sb().fake.respondWith(
      scenarioScript({
        ask: [(call) => {
          seen.push([...call.texts]);
          return reply(respond([part('response', 'Noted.')], 'complete'));
        }],
      }),
    );
    const failures = createDeliveryFailures({ redis: sb().redis(), prefix: sb().prefix });
    const sessionId = sessionIdOf('default', 'web', 'c-notes');
    await failures.noteForSession({ sessionId, idempotencyKey: 'turn_x.0.0.0|web:c-notes', channel: 'web', at: '2026-11-27T10:00:00.000Z', excerpt: 'Your flight is booked.' });
    await sb().post('c-notes', 'did it work? #ask');
    await sb().settled('c-notes', 1);
    await sb().post('c-notes', 'and now? #ask');
    await sb().settled('c-notes', 2);
    const notices = (texts: readonly string[]): string[] => texts.filter((text) => text.startsWith('[delivery-notice]'));
    expect(seen).toHaveLength(2);
    expect(notices(seen[0] ?? [])).toHaveLength(1);
    expect(notices(seen[0] ?? [])[0]).toContain('Your flight is booked.');
    // The second turn's request carries the first turn's message again (history), and no new notice.
    expect(notices(seen[1] ?? [])).toHaveLength(1);
    expect(await failures.takeForSession(sessionId)).toEqual([]);
  });
});
