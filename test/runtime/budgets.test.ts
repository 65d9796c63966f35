import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { periodWindow } from '../../src/runtime/budgets/budget-periods.ts';
import { RATE_LIMIT_TEXT } from '../../src/runtime/budgets/turn-budgets.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import type { BudgetsSnapshot } from '../../service/budgets-page.ts';
import type { FakeMessageRequest } from '../fakes/fake-anthropic-types.ts';
import { useRedis } from '../support/redis.ts';
import { lastUserText, part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import type { WebClient } from '../web/web-client.ts';

/**
 * Budgets over the web chat, one process: `budget-app` gives each conversation 1000 tokens a day
 * and each sender 4 turns a minute, and the fake model reports 400 tokens a call.
 */
const appDir = fileURLToPath(new URL('../fixtures/budget-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

const USAGE = { inputTokens: 300, outputTokens: 100 };
const DAY_LIMIT_TEXT = /^Today's limit for this conversation is reached; it resets at 00:00 UTC \(in \d+ (h|min)( \d+ min)?\)\.$/;

beforeAll(() => {
  sb().fake.respondWith((request) => ({ ...reply(respond([part('response', `echo ${lastUserText(request)}`)], 'complete')), usage: USAGE }));
});

/** The model calls whose request carries `text` anywhere. */
function callsWith(text: string): FakeMessageRequest[] {
  return sb().fake.messageRequests.filter((request) => JSON.stringify(request.body.messages).includes(text));
}

/** Each part of the conversation as `[partType, text, turnState]`, in order. */
function partsOf(events: readonly StoredWebChatEvent[]): [string, string | undefined, string][] {
  return events.flatMap(({ event }) => (event.type === 'part' ? [[event.part.metadata.partType, event.part.text, event.turnState] as [string, string | undefined, string]] : []));
}

/** Posts `text` as `browser` and waits until the conversation has `turns` settled turns. */
async function say(browser: WebClient, conversation: string, text: string, turns: number): Promise<StoredWebChatEvent[]> {
  expect((await sb().post(conversation, text, undefined, browser)).status).toBe(202);
  return sb().settled(conversation, turns);
}

describe('budgets in the web chat', () => {
  it('a conversation stops at its limit: the turn says why without a model call, and its message stays in the history', async () => {
    const browser = sb().client();
    const conversation = 'c-limit';
    for (let index = 0; index < 3; index += 1) await say(browser, conversation, `${conversation} m${String(index)}`, index + 1);
    const events = await say(browser, conversation, `${conversation} m3`, 4);
    const parts = partsOf(events);
    expect(parts.slice(0, 3)).toEqual([0, 1, 2].map((index) => ['response', `echo ${conversation} m${String(index)}`, 'complete']));
    expect(parts[3]?.[0]).toBe('error');
    expect(parts[3]?.[1]).toMatch(DAY_LIMIT_TEXT);
    expect(callsWith(`${conversation} m3`)).toEqual([]);
    // Three calls of 400 tokens: the limit was passed by one turn, no more.
    const sessionId = sessionIdOf('default', 'web', conversation);
    const day = periodWindow('day', Date.now()).id;
    const dayKey = `${sb().prefix}:budget:conversation:${sessionId}:d:${day}`;
    expect(await sb().redis().hgetall(dayKey)).toEqual({ tokens: '1200', calls: '3' });

    // A new day: the next turn runs, and the model reads the refused message before the new one.
    await sb().redis().del(dayKey);
    const after = partsOf(await say(browser, conversation, `${conversation} m4`, 5));
    expect(after[4]).toEqual(['response', expect.stringContaining(`${conversation} m4`), 'complete']);
    const [call] = callsWith(`${conversation} m4`);
    const seen = JSON.stringify(call?.body.messages);
    expect(seen.indexOf(`${conversation} m3`)).toBeGreaterThan(-1);
    expect(seen.indexOf(`${conversation} m3`)).toBeLessThan(seen.indexOf(`${conversation} m4`));
  });

  it('a sender starting more turns a minute than allowed is told to slow down, without a model call', async () => {
    const browser = sb().client();
    for (let index = 0; index < 4; index += 1) {
      const parts = partsOf(await say(browser, `r-${String(index)}`, `rate r-${String(index)}`, 1));
      expect(parts).toEqual([['response', `echo rate r-${String(index)}`, 'complete']]);
    }
    expect(partsOf(await say(browser, 'r-4', 'rate r-4', 1))).toEqual([['error', RATE_LIMIT_TEXT, 'error']]);
    expect(callsWith('rate r-4')).toEqual([]);
    // Another sender is not held back.
    expect(partsOf(await say(sb().client(), 'r-5', 'rate r-5', 1))).toEqual([['response', 'echo rate r-5', 'complete']]);
  });

  it('/metrics and /admin show what the tests above spent and refused', async () => {
    // 4 + 5 calls of 400 tokens, one refusal of each kind.
    const metrics = await (await fetch(`${sb().url}/metrics`)).text();
    expect(metrics).toContain('switchboard_budget_calls_total{sender="unknown"} 9');
    expect(metrics).toContain('switchboard_budget_tokens_total{sender="unknown"} 3600');
    expect(metrics).toContain('switchboard_budget_refusals_total{reason="budget_conversation_day"} 1');
    expect(metrics).toContain('switchboard_budget_refusals_total{reason="rate_limit"} 1');

    const snapshot = (await (await fetch(`${sb().url}/admin/api/budgets`)).json()) as BudgetsSnapshot;
    expect(snapshot.deployment.day).toMatchObject({ period: periodWindow('day', Date.now()).id, tokens: 3600, calls: 9 });
    expect(snapshot.deployment.day.tokenLimit).toBeUndefined();
    expect(snapshot.deployment.month).toMatchObject({ tokens: 3600, calls: 9 });
    // Each call of 300 input and 100 output tokens at the built-in claude-sonnet-5-5 price: $0.0016.
    expect(snapshot.deployment.day.costUsd).toBeCloseTo(9 * 0.0016, 9);
    expect(metrics).toMatch(/switchboard_model_cost_usd_total\{model="claude-sonnet-5-5"\} 0\.0144/);
    expect(snapshot.topSenders.map((row) => row.calls).sort()).toEqual([1, 4, 4]);
    expect(snapshot.topConversations[0]?.id).toBe(sessionIdOf('default', 'web', 'c-limit'));
    const page = await (await fetch(`${sb().url}/admin`)).text();
    expect(page).toContain('<h1 id="budgets">Budgets</h1>');
    expect(page).toContain('3,600 (no limit)');
  });
});
