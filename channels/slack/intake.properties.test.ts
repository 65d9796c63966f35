import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Injection } from '../../src/runtime/injection.ts';
import { anyJson, brokenFrom, FUZZ_PEOPLE, jsonText, nastyString, useFuzzGuards } from '../../test/support/fuzz-inputs.ts';
import { expectWellFormedInjection } from '../../test/support/well-formed-injection.ts';
import { createSlackIntake, type SlackPayloadInput } from './intake.ts';
import { normaliseSlackEvent } from './normalise.ts';

useFuzzGuards();

const BOT = 'U0BOT';
const id = (prefix: string): fc.Arbitrary<string> => fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[A-Z0-9]{2,10}$/).map((rest) => `${prefix}${rest}`) }, nastyString);
const ts = fc.oneof({ weight: 4, arbitrary: fc.tuple(fc.nat({ max: 2_000_000_000 }), fc.nat({ max: 999_999 })).map(([seconds, micros]) => `${seconds}.${String(micros).padStart(6, '0')}`) }, nastyString);

const file = fc.record({ name: nastyString, title: nastyString, mimetype: fc.constantFrom('application/pdf', 'text/html'), size: fc.oneof(fc.nat(), fc.double()), url_private_download: fc.constantFrom('https://files.slack.com/f/1', 'https://evil.example/f') }, { requiredKeys: [] });
const eventCallback = fc.record(
  {
    type: fc.constant('event_callback'),
    team_id: id('T'),
    event_id: fc.oneof(fc.stringMatching(/^Ev[A-Z0-9]{8}$/), nastyString),
    event: fc.record(
      {
        type: fc.constantFrom('message', 'app_mention', 'reaction_added'),
        subtype: fc.constantFrom('file_share', 'thread_broadcast', 'message_changed', 'bot_message'),
        bot_id: fc.constant('B1'),
        user: fc.oneof(id('U'), fc.constant(BOT)),
        channel: id('C'),
        channel_type: fc.constantFrom('im', 'channel'),
        ts,
        thread_ts: ts,
        text: fc.oneof(nastyString, nastyString.map((text) => `<@${BOT}> ${text}`)),
        files: fc.array(file, { maxLength: 3 }),
      },
      { requiredKeys: ['type', 'user', 'channel', 'ts'] },
    ),
  },
  { requiredKeys: ['type', 'event'] },
);
const blockActions = fc.record(
  {
    type: fc.constant('block_actions'),
    user: fc.record({ id: id('U'), team_id: id('T') }, { requiredKeys: [] }),
    team: fc.record({ id: id('T') }),
    channel: fc.record({ id: id('C') }),
    message: fc.record({ ts, thread_ts: ts }, { requiredKeys: [] }),
    actions: fc.array(
      fc.record({
        action_id: fc.constantFrom('approval.approve', 'approval.deny', 'other'),
        value: fc.oneof(
          fc.record({ approvalId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{22}$/), nastyString), argsHash: nastyString }, { requiredKeys: ['approvalId'] }).map((value) => JSON.stringify(value)),
          nastyString,
        ),
        action_ts: ts,
      }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ['type', 'actions'] },
);
const payload = fc.oneof(eventCallback, blockActions, brokenFrom(eventCallback), brokenFrom(blockActions), fc.record({ type: fc.constant('url_verification'), challenge: anyJson }), anyJson);

/** A payload as it comes: a Socket Mode envelope, a JSON body, a form body (interactivity), or a body of any bytes. */
const input: fc.Arbitrary<SlackPayloadInput> = fc.oneof(
  payload.map((envelope) => ({ envelope })),
  payload.map((value) => ({ body: jsonText(value), contentType: 'application/json' })),
  payload.map((value) => ({ body: new URLSearchParams({ payload: jsonText(value) }).toString(), contentType: 'application/x-www-form-urlencoded' })),
  fc.tuple(nastyString, fc.constantFrom('application/json', 'application/x-www-form-urlencoded', '')).map(([body, contentType]) => ({ body, contentType })),
);

describe('the Slack intake (properties)', () => {
  it('comes to an outcome for any payload without rejecting, and enqueues only well-formed injections', async () => {
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async (given, botInThread) => {
        const enqueued: Injection[] = [];
        const intake = createSlackIntake({
          botUserId: () => Promise.resolve(BOT),
          store: { inThread: () => Promise.resolve(botInThread), joinThread: () => Promise.resolve() },
          normalise: (event) => normaliseSlackEvent(event, { people: FUZZ_PEOPLE, tenantId: 'tenant-1' }),
          enqueue: (injection) => {
            enqueued.push(injection);
            return Promise.resolve({ duplicate: false });
          },
          logger: { info: () => undefined },
          clock: () => new Date('2026-03-01T12:00:00.000Z'),
        });
        const outcome = await intake(given, {});
        expect(['unreadable', 'challenge', 'ignored', 'taken']).toContain(outcome.kind);
        if (outcome.kind === 'challenge') expect(typeof outcome.challenge).toBe('string');
        if (outcome.kind === 'ignored') expect(outcome.reason).not.toBe('');
        expect(enqueued).toHaveLength(outcome.kind === 'taken' ? 1 : 0);
        for (const injection of enqueued) {
          expectWellFormedInjection(injection, given);
          expect(injection.sender.id).not.toMatch(new RegExp(`:${BOT}$`));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
