import Anthropic from '@anthropic-ai/sdk';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { createAnthropicModelClient } from '../../src/runtime/model/anthropic-model-client.ts';
import type { FakeMessageRequest, FakeReply } from '../fakes/fake-anthropic-types.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

/**
 * Provider storms (issue 13): the fake model answers 429 with Retry-After, 500, 529 overloaded
 * (as a status, and as an `error` event mid-stream), hangs, or cuts its stream mid-way. Real Redis,
 * the real service over the web chat, the real SDK against the fake: with the production's 2 SDK
 * retries, but a 1 s timeout per attempt so a hung attempt is retried within the 4 s turn deadline
 * of `storm-app`. Three turns run at once, so the crowd test has more conversations than slots.
 */
const appDir = fileURLToPath(new URL('../fixtures/storm-app/', import.meta.url));
const redisUrl = useRedis();
const ATTEMPT_TIMEOUT_MS = 1000;
const TURN_DEADLINE_MS = 4000;
const sb = useSwitchboard({
  appDir,
  redisUrl,
  turnConcurrency: 3,
  model: (url) => createAnthropicModelClient({ client: new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 2, timeout: ATTEMPT_TIMEOUT_MS }) }),
});

/** The storms, by name. */
const STORMS = {
  overloaded: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
  overloadedMidStream: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', midStream: true } },
  serverError: { error: { status: 500, type: 'api_error', message: 'Internal server error' } },
  rateLimited: { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit', retryAfterSeconds: 0.2 } },
  hang: { hang: true },
  cutStream: { ...reply(respond([part('response', 'This answer is cut off mid-way.')], 'complete')), cutAfterEvents: 4 },
} as const satisfies Record<string, FakeReply>;
type StormName = keyof typeof STORMS;

/** What the person reads when a storm persists: the cause, in plain words. */
const PERSISTENT_TEXT: Readonly<Record<StormName, RegExp>> = {
  overloaded: /^The model is overloaded right now/,
  overloadedMidStream: /^The model is overloaded right now/,
  serverError: /^The model service had an internal error/,
  rateLimited: /^The model is receiving too many requests/,
  hang: /took longer than allowed|did not answer in time/,
  cutStream: /^The connection to the model was lost/,
};

/** The fake's storm for each conversation tag: its first replies, then (when not persistent) an answer. */
interface StormPlan {
  readonly failures: readonly FakeReply[];
  /** Fail every call, not only the first ones. */
  readonly persistent?: boolean;
}

/** The latest `#tag` in the person's messages of a request. */
function tagOf(request: FakeMessageRequest): string {
  const texts = request.body.messages.flatMap((message) =>
    message.role !== 'user' ? [] : typeof message.content === 'string' ? [message.content] : message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])),
  );
  for (const text of texts.toReversed()) {
    const found = /#([a-z0-9-]+)/.exec(text)?.[1];
    if (found !== undefined) return found;
  }
  throw new Error('no #tag in the request');
}

/**
 * Scripts the fake: a tag with a plan gets its failures first (the last one again and again when
 * persistent); every other call is answered `Answer for <tag>.`. Returns when each tag's calls came.
 */
function storm(plans: Readonly<Record<string, StormPlan>>): Map<string, number[]> {
  const calls = new Map<string, number[]>();
  sb().fake.respondWith((request) => {
    const tag = tagOf(request);
    const times = calls.get(tag) ?? [];
    times.push(Date.now());
    calls.set(tag, times);
    const plan = plans[tag];
    const index = times.length - 1;
    const failure = plan === undefined ? undefined : plan.persistent === true ? plan.failures[Math.min(index, plan.failures.length - 1)] : plan.failures[index];
    return failure ?? reply(respond([part('response', `Answer for ${tag}.`)], 'complete'));
  });
  return calls;
}

interface SeenPart {
  readonly turnId: string;
  readonly partType: string;
  readonly text: string | undefined;
  readonly turnState: string;
}

function partsOf(events: readonly StoredWebChatEvent[]): SeenPart[] {
  return events.flatMap(({ event }) =>
    event.type === 'part' ? [{ turnId: event.turnId, partType: event.part.metadata.partType, text: event.part.text, turnState: event.turnState }] : [],
  );
}

/** The parts of the conversation's `n`th turn (0-based, in order of first appearance). */
function turnParts(events: readonly StoredWebChatEvent[], n: number): SeenPart[] {
  const parts = partsOf(events);
  const turnIds = [...new Set(parts.map((seen) => seen.turnId))];
  return parts.filter((seen) => seen.turnId === turnIds[n]);
}

function finalStates(events: readonly StoredWebChatEvent[]): string[] {
  return events.flatMap(({ event }) => (event.type === 'turn' ? [event.turnState] : []));
}

/** Posts a message and waits for the conversation's `count`th turn to settle; returns the events and the time taken (ms). */
async function ask(conversation: string, text: string, count: number): Promise<{ events: StoredWebChatEvent[]; ms: number }> {
  const startedAt = Date.now();
  const posted = await sb().post(conversation, text);
  expect(posted.status).toBe(202);
  const events = await sb().settled(conversation, count, 15_000);
  return { events, ms: Date.now() - startedAt };
}

/** Asks a follow-up in the conversation and checks it is answered once, normally. */
async function expectUsableAfter(conversation: string, turnsBefore: number): Promise<void> {
  const tag = `${conversation}-after`;
  const { events } = await ask(conversation, `and now? #${tag}`, turnsBefore + 1);
  expect(turnParts(events, turnsBefore).map((seen) => [seen.partType, seen.text, seen.turnState])).toEqual([['response', `Answer for ${tag}.`, 'complete']]);
}

describe('provider storms: the model API fails, the turn still ends well and the session stays usable', () => {
  const transient: readonly (readonly [StormName, number])[] = [
    ['overloaded', 2],
    ['overloadedMidStream', 2],
    ['serverError', 2],
    ['rateLimited', 2],
    ['hang', 1],
    ['cutStream', 2],
  ];
  it.each(transient)('transient %s (%i failed calls): the retry succeeds and the person gets exactly one answer', async (name, failures) => {
    const tag = `t-${name.toLowerCase()}`;
    const calls = storm({ [tag]: { failures: Array.from({ length: failures }, () => STORMS[name]) } });
    const { events, ms } = await ask(tag, `hello #${tag}`, 1);
    expect(partsOf(events).map((seen) => [seen.partType, seen.text, seen.turnState])).toEqual([['response', `Answer for ${tag}.`, 'complete']]);
    expect(finalStates(events).at(-1)).toBe('complete');
    expect(calls.get(tag)).toHaveLength(failures + 1);
    expect(ms).toBeLessThan(TURN_DEADLINE_MS + 1000);
    expect(sb().fake.problems).toEqual([]);
  });

  it('a 429 is retried no earlier than its Retry-After says', async () => {
    const tag = 't-retry-after';
    const calls = storm({ [tag]: { failures: [{ error: { ...STORMS.rateLimited.error, retryAfterSeconds: 1 } }] } });
    const { events } = await ask(tag, `hello #${tag}`, 1);
    expect(partsOf(events).map((seen) => seen.text)).toEqual([`Answer for ${tag}.`]);
    const [first, second] = calls.get(tag) ?? [];
    // The fake saw the first call before it answered it, so the gap is at least the whole second.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1000);
    expect((second ?? 0) - (first ?? 0)).toBeLessThan(3000);
  });

  it.each(Object.keys(STORMS) as StormName[])(
    'persistent %s: the turn ends in one clear error part within bounded time, then the conversation works again',
    async (name) => {
      const tag = `p-${name.toLowerCase()}`;
      const calls = storm({ [tag]: { failures: [STORMS[name]], persistent: true } });
      const { events, ms } = await ask(tag, `hello #${tag}`, 1);
      const parts = turnParts(events, 0);
      expect(parts).toHaveLength(1);
      expect(parts[0]).toMatchObject({ partType: 'error', turnState: 'error' });
      expect(parts[0]?.text).toMatch(PERSISTENT_TEXT[name]);
      expect(finalStates(events).at(-1)).toBe('error');
      expect(ms).toBeLessThan(TURN_DEADLINE_MS + 2000);
      // The SDK's 2 retries (or ours for a broken stream), no more; a hang is cut by the deadline.
      if (name === 'hang') expect(calls.get(tag)?.length).toBeLessThanOrEqual(3);
      else expect(calls.get(tag)).toHaveLength(3);
      await expectUsableAfter(tag, 1);
    },
  );

  it('a storm across 10 conversations at once, with 3 turn slots, drains: each turn ends once, then each conversation works again', async () => {
    const names = Object.keys(STORMS) as StormName[];
    const conversations = Array.from({ length: 10 }, (_, index) => `crowd-${index}`);
    // Every conversation meets a storm on its first call; the last two meet a persistent overload.
    const plans = Object.fromEntries(
      conversations.map((tag, index) => {
        const persistent = index >= 8;
        const failure = STORMS[persistent ? 'overloaded' : (names[index % names.length] ?? 'overloaded')];
        return [tag, { failures: [failure], persistent }];
      }),
    );
    storm(plans);
    const startedAt = Date.now();
    const posted = await Promise.all(conversations.map(async (tag) => (await sb().post(tag, `hello #${tag}`)).status));
    expect(posted).toEqual(conversations.map(() => 202));
    const settled = await Promise.all(conversations.map((tag) => sb().settled(tag, 1, 20_000)));
    const drainedMs = Date.now() - startedAt;
    settled.forEach((events, index) => {
      const tag = conversations[index] ?? '';
      const parts = turnParts(events, 0).map((seen) => [seen.partType, seen.turnState]);
      expect(parts, tag).toEqual(index >= 8 ? [['error', 'error']] : [['response', 'complete']]);
    });
    expect(drainedMs).toBeLessThan(15_000);
    await Promise.all(conversations.map((tag) => expectUsableAfter(tag, 1)));
    expect(sb().fake.problems).toEqual([]);
  }, 40_000);
});
