import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { anyJson, brokenFrom, jsonText, nastyString, settledOutcomeOf, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { callRoute } from '../../test/support/in-memory-http.ts';
import { expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import { createWebMessageRoute } from './message-route.ts';
import type { WebEventStore } from './stream/event-store.ts';

useFuzzGuards();

/** A signed-in session that passes every check, and a store that takes every echo: only the body varies. */
function route(enqueued: Injection[]) {
  const session = { sid: 's', identity: 'b_abc', basis: 'web session cookie', createdAt: '2026-03-01T12:00:00.000Z' };
  const identity = {
    authorisePost: () => Promise.resolve({ session, condition: { key: 'sid-key', ttlMs: 1000 } }),
    owners: { claim: () => Promise.resolve(), read: () => Promise.resolve(null) },
    personOf: () => undefined,
  } as unknown as WebIdentity;
  const store = { append: () => Promise.resolve({ id: '1-0', duplicate: false }) } as unknown as WebEventStore;
  return createWebMessageRoute({
    store,
    identity,
    tenantId: 'tenant-1',
    clock: () => new Date('2026-03-01T12:00:00.000Z'),
    enqueue: (injection) => {
      enqueued.push(injection);
      return Promise.resolve({ duplicate: false });
    },
  });
}

const messageBody = fc.record({ text: nastyString, id: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,100}$/), nastyString) }, { requiredKeys: ['text'] });

/** Request bodies: random bytes, random JSON, and message bodies with odd or broken fields. */
const body: fc.Arbitrary<Buffer | string> = fc.oneof(
  fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
  anyJson.map(jsonText),
  messageBody.map(jsonText),
  brokenFrom(messageBody).map(jsonText),
);

describe('POST /api/chat/:conversationId/messages body checks (properties)', () => {
  it('accepts a message with a well-formed injection of its trimmed text, or refuses it as a bad request', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), nastyString), async (raw, conversationId) => {
        const enqueued: Injection[] = [];
        const outcome = await settledOutcomeOf(() => callRoute(route(enqueued), { body: raw, headers: { 'content-type': 'application/json' }, params: { conversationId } }));
        if ('refused' in outcome) {
          expect(outcome.refused.code).toBe('http.bad_request');
          expect(enqueued).toEqual([]);
          return;
        }
        expect(outcome.returned.status).toBe(202);
        expect(enqueued).toHaveLength(1);
        const [injection] = enqueued;
        expectWellFormedInjection(injection, [raw, conversationId]);
        expect(injection.text).toBe(injection.text.trim());
        expect(injection.text.length).toBeGreaterThan(0);
        expect(injection.text.length).toBeLessThanOrEqual(8000);
        expect(JSON.parse(outcome.returned.body)).toMatchObject({ id: injection.id, duplicate: false });
      }),
      { numRuns: 1000 },
    );
  });
});
