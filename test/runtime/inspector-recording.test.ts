/**
 * The inspector's recording side through the running service and a real Redis (issue 26): a turn
 * that asks for an approval leaves enriched `model_request`, `model_response`, `tool_call` and
 * `approval` entries; the conversation index finds it by address and by state as it suspends and
 * settles; with capture on the whole calls are kept for the retention days, with capture off
 * nothing is; personal data is masked and planted secrets appear nowhere. (Which way capture goes
 * by default is `inspect-settings.test.ts`'s: the harness's service runs as if it started its own
 * Redis, so both apps here say it in writing.)
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { captureKey, createCaptureStore } from '../../src/runtime/inspect/capture-store.ts';
import { createConversationIndex } from '../../src/runtime/inspect/conversation-index.ts';
import { MASKED } from '../../src/runtime/inspect/personal-data.ts';
import { REDACTED } from '../../src/runtime/inspect/redact.ts';
import { eventLogKey, type StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond, scenarioScript, toolCall } from '../support/scenario-model.ts';
import { useSwitchboard, type SwitchboardHarness } from '../support/switchboard-harness.ts';
import { waitFor } from '../support/wait-for.ts';

const PLANTED_KEY = `planted-model-key-${randomBytes(12).toString('hex')}`;
const PLANTED_ADMIN = `planted-admin-token-${randomBytes(16).toString('hex')}`;
const PLANTED_BEARER = `zzPlantedBearer${randomBytes(8).toString('hex')}`;
const NAME = 'Lovelace-Byron';

const redisUrl = useRedis();
const on = useSwitchboard({
  appDir: fileURLToPath(new URL('../fixtures/inspect-app/', import.meta.url)),
  redisUrl,
  env: { ANTHROPIC_API_KEY: PLANTED_KEY, ADMIN_TOKEN: PLANTED_ADMIN },
});
const off = useSwitchboard({ appDir: fileURLToPath(new URL('../fixtures/inspect-off-app/', import.meta.url)), redisUrl });

function entries(log: readonly StoredEventLogEntry[], type: StoredEventLogEntry['type']): Record<string, unknown>[] {
  return log.filter((entry) => entry.type === type).map((entry) => entry.data);
}

/** Every key under `prefix` matching `pattern` (SCAN, in a test). */
async function keys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}

/** The approval-request parts shown in a web conversation so far. */
async function approvalRequests(sb: SwitchboardHarness, conversation: string): Promise<{ approvalId: string }[]> {
  return (await sb.events(conversation)).flatMap(({ event }) =>
    event.type === 'part' && event.part.metadata.partType === 'approval-request' ? [event.part.data as { approvalId: string }] : []);
}

describe('the inspector records a turn with an approval (capture on)', () => {
  it('logs enriched entries, indexes the conversation, captures the calls, masks personal data and keeps secrets out', async () => {
    const sb = on();
    const redis = sb.redis();
    sb.fake.respondWith(scenarioScript({
      insp: [
        () => reply(respond([part('ack', 'Booking that.')], 'awaiting'), toolCall('book_seats', { passengers: [{ fullName: `Ada ${NAME}` }], total: 120, note: `key ${PLANTED_KEY}`, apiKey: PLANTED_ADMIN })),
        () => reply(respond([part('response', 'Booked: SB42.')], 'complete')),
      ],
    }));
    const conversation = 'insp-on';
    const sessionId = sessionIdOf('default', 'web', conversation);
    const index = createConversationIndex({ redis, prefix: sb.prefix });
    await sb.post(conversation, `book two seats #insp; my key is ${PLANTED_KEY}, Authorization: Bearer ${PLANTED_BEARER}`);

    await waitFor(async () => (await approvalRequests(sb, conversation)).length > 0, 'the approval request');
    await waitFor(async () => (await index.get(sessionId))?.state === 'suspended', 'the conversation suspended in the index');
    expect((await index.search({ address: conversation, state: 'suspended' })).items.map((item) => item.sessionId)).toEqual([sessionId]);
    const [request] = await approvalRequests(sb, conversation);
    const approvalId = request?.approvalId ?? '';
    expect((await sb.decide(approvalId, 'granted', { conversationId: conversation })).status).toBe(200);
    await sb.settled(conversation);
    await waitFor(async () => (await index.get(sessionId))?.state === 'settled', 'the conversation settled in the index');

    // The index: found by address and by state, with what the turn cost.
    const summary = await index.get(sessionId);
    expect(summary).toMatchObject({ sessionId, channel: 'web', address: conversation, actor: 'main', state: 'settled', turns: 1, lastText: 'Booked: SB42.' });
    expect(summary?.tokens).toBeGreaterThan(0);
    expect(summary?.costUsd).toBeGreaterThan(0);
    expect(summary?.senderId).toMatch(/^web:/);
    expect((await index.search({ address: conversation })).items.map((item) => item.sessionId)).toEqual([sessionId]);
    expect((await index.search({ state: 'settled' })).items.map((item) => item.sessionId)).toContain(sessionId);
    expect((await index.search({ state: 'failed' })).items).toEqual([]);

    // The log: model calls with their facts, both tool_call outcomes, the approval's story.
    const log = await sb.log(conversation);
    const turnId = log.find((entry) => entry.type === 'turn_started')?.turnId ?? '';
    const requests = entries(log, 'model_request');
    expect(requests).toHaveLength(2);
    for (const data of requests) expect(data).toMatchObject({ model: 'claude-sonnet-5-5', captured: true });
    const responses = entries(log, 'model_response');
    expect(responses).toHaveLength(2);
    for (const data of responses) {
      expect(data).toMatchObject({ model: 'claude-sonnet-5-5', stopReason: 'tool_use', usage: { cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } });
      const usage = data['usage'] as Record<string, unknown>;
      expect(usage['inputTokens']).toBeGreaterThan(0);
      expect(usage['outputTokens']).toBeGreaterThan(0);
      expect(data['latencyMs']).toBeGreaterThanOrEqual(0);
      expect(data['costUsd']).toBeGreaterThan(0);
      expect(Array.isArray(data['content'])).toBe(true);
    }
    expect(responses[0]).toMatchObject({ step: 0, blocks: ['respond', 'book_seats'], parts: [{ partType: 'ack', text: 'Booking that.' }] });
    expect(responses[1]).toMatchObject({ step: 1, parts: [{ partType: 'response', text: 'Booked: SB42.' }] });
    const calls = entries(log, 'tool_call');
    expect(calls.map((data) => data['outcome'])).toEqual(['approval_required', 'ok']);
    expect(calls[0]).toMatchObject({ callId: `${turnId}.0.1`, tool: 'book_seats', scope: 'generalist', routing: 'routed', durationMs: 0, args: { passengers: [{ fullName: MASKED }], total: 120 } });
    expect(calls[1]).toMatchObject({ tool: 'book_seats', approvalId, args: { passengers: [{ fullName: MASKED }] } });
    expect(String(calls[1]?.['result'])).toContain('SB42');
    const approvals = entries(log, 'approval');
    expect(approvals.map((data) => data['event'])).toEqual(['requested', 'decided']);
    expect(approvals[0]).toMatchObject({ approvalId, tool: 'book_seats', askedVia: [{ channel: 'web', address: conversation }] });
    expect(approvals[1]).toMatchObject({ approvalId, tool: 'book_seats', decision: 'granted', decidedBy: { channel: 'web' }, evidence: { argsHashChecked: false } });
    expect(typeof (approvals[1]?.['evidence'] as Record<string, unknown>)['verified']).toBe('boolean');

    // The capture: both calls whole, for the retention days (2 in this app).
    const captures = createCaptureStore({ redis, prefix: sb.prefix });
    const first = await captures.read(sessionId, turnId, 0);
    const captured = first?.request as Record<string, unknown>;
    expect(captured['model']).toBe('claude-sonnet-5-5');
    for (const field of ['system', 'tools', 'messages']) expect(Array.isArray(captured[field])).toBe(true);
    expect((captured['tools'] as { name: string }[]).map((tool) => tool.name)).toEqual(['respond', 'book_seats']);
    expect(Array.isArray((first?.response as Record<string, unknown>)['content'])).toBe(true);
    expect(await captures.read(sessionId, turnId, 1)).toBeDefined();
    const ttl = await redis.ttl(captureKey(sb.prefix, sessionId, turnId, 0));
    expect(ttl).toBeGreaterThan(2 * 86_400 - 600);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400);

    // Nothing recorded holds a planted secret or the passenger's name; masks and redactions show.
    const rawLog = JSON.stringify(await redis.xrange(eventLogKey(sb.prefix, sessionId), '-', '+'));
    const captureKeys = await keys(redis, `${sb.prefix}:cap:*`);
    expect(captureKeys.length).toBe(2);
    const rawCaptures = JSON.stringify(await redis.mget(...captureKeys));
    const rawIndex = JSON.stringify(await redis.hgetall(`${sb.prefix}:conv:sum`));
    for (const recorded of [rawLog, rawCaptures, rawIndex]) {
      for (const secret of [PLANTED_KEY, PLANTED_ADMIN, PLANTED_BEARER, NAME]) expect(recorded).not.toContain(secret);
    }
    expect(rawCaptures).toContain(REDACTED);
    expect(rawCaptures).toContain(MASKED);
    expect(rawLog).toContain(MASKED);
  });
});

describe('the inspector with capture off (`inspect: { capture: false }`)', () => {
  it('logs the facts of each call and indexes the conversation, and keeps no whole call', async () => {
    const sb = off();
    sb.fake.respondWith(scenarioScript({ off: [() => reply(respond([part('response', 'Done.')], 'complete'))] }));
    const conversation = 'insp-off';
    const sessionId = sessionIdOf('default', 'web', conversation);
    await sb.post(conversation, 'hello #off');
    await sb.settled(conversation);
    const index = createConversationIndex({ redis: sb.redis(), prefix: sb.prefix });
    await waitFor(async () => (await index.get(sessionId))?.state === 'settled', 'the conversation settled in the index');
    expect((await index.search({ address: conversation, state: 'settled' })).items.map((item) => item.sessionId)).toEqual([sessionId]);
    const log = await sb.log(conversation);
    const [request] = entries(log, 'model_request');
    const [response] = entries(log, 'model_response');
    expect(request).not.toHaveProperty('captured');
    expect(response).not.toHaveProperty('content');
    expect(response?.['costUsd']).toBeGreaterThan(0);
    expect(await keys(sb.redis(), `${sb.prefix}:cap:*`)).toEqual([]);
  });
});
