/**
 * Redis goes away at exactly a new turn's first save of its record, while the turn's model call
 * runs (that save is not waited for before the call). Redis is back before the model answers. The
 * turn must show nothing and log nothing: its record was never stored, so the turn that takes the
 * message up again is a new one, and anything the first had shown would be a second answer. The
 * message is answered exactly once, and every turn the log started is settled.
 *
 * The record has a save of its own when the process that begins the turn did not accept its
 * message (a web role accepted it; a worker runs its queued turn): a process that accepted the
 * message saves the record in the begin's own script instead. So the message is accepted here
 * through another connection, as a web process would, and its turn is a queue job.
 *
 * The cut is placed with a proxy that drops every connection at the `SET` of the turn's record
 * (see `cutting-proxy.ts`); Redis keeps running.
 *
 * The second case cuts a process that accepted the message itself, at the begin that saves the
 * new record in its own script (sent in one write behind the accept and the lock's claim): the
 * begin never runs, and the message is answered once all the same.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normaliseWebMessage } from '../../channels/web/normalise.ts';
import { createTurnQueue } from '../../queues/turn-queue.ts';
import { createEventLog } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { createSessionStore } from '../../src/runtime/session/session-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { useServiceBehindCuttingProxy } from './behind-cutting-proxy.ts';
import { echoModel, postMessage, responses, untilReady } from './outage-kit.ts';

// An app whose turns send nothing to Redis between their begin and their model call (no budget to
// admit), so the model call is under way when the cut comes.
const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const { proxy: cutting, direct: straight, sb } = useServiceBehindCuttingProxy(appDir);

/** The `SET` of a session's turn record, as the client writes it. */
function recordSave(prefix: string, sessionId: string): string {
  const key = `${prefix}:s:${sessionId}:turn`;
  return `set\r\n$${String(key.length)}\r\n${key}\r\n`;
}

describe('Redis lost at a new turn\'s first save, while its model call runs', () => {
  it('shows and logs nothing of that turn, and answers the message once from the turn begun again', async () => {
    const proxy = cutting();
    const direct = straight();
    const sessionId = sessionIdOf('default', 'web', 'c-cut');
    const { promise: backAgain, resolve: answerNow } = Promise.withResolvers<undefined>();
    let calls = 0;
    // The first call answers only once Redis is back; the next (the new turn's) at once.
    sb().fake.respondWith(async (request, index) => {
      calls += 1;
      if (calls === 1) await backAgain;
      return echoModel(request, index);
    });
    const injection = normaliseWebMessage({
      conversationId: 'c-cut', clientMessageId: 'm-cut', tenantId: 'default', text: 'book it',
      sender: { id: 'web:b_cut', verified: true }, receivedAt: new Date().toISOString(),
    });
    expect(await createSessionStore({ redis: direct, prefix: sb().prefix }).accept(sessionId, injection)).toBe(true);
    const cut = proxy.cutAt(recordSave(sb().prefix, sessionId));
    const turns = createTurnQueue({ connection: direct, prefix: sb().prefix });
    try {
      await turns.schedule(sessionId, injection.id);
    } finally {
      await turns.close();
    }
    await cut;
    proxy.heal();
    await untilReady(sb().url);
    answerNow(undefined);

    await sb().settled('c-cut', 1, 20_000);
    // The first turn failed before its retry was scheduled: all it could show is in by now.
    expect(calls).toBe(2);
    const events = await sb().events('c-cut');
    expect(responses(events)).toEqual(['Echo: book it']);
    expect(events.filter(({ event }) => event.type === 'part' && event.part.metadata.partType === 'error')).toEqual([]);
    // The settlement reaches the stream before the script that clears the turn writes `turn_settled`.
    await waitFor(async () => (await direct.exists(`${sb().prefix}:s:${sessionId}:turn`)) === 0, 'the turn record to be cleared');
    const log = await createEventLog({ redis: direct, prefix: sb().prefix }).read(sessionId, 1000);
    const started = log.filter((entry) => entry.type === 'turn_started').map((entry) => entry.turnId);
    const settled = log.filter((entry) => entry.type === 'turn_settled').map((entry) => entry.turnId);
    expect(started).toHaveLength(1);
    expect(settled).toEqual(started);
  }, 40_000);
});

describe('Redis lost at the begin that saves a new turn\'s record in its own script', () => {
  it('answers the message once: sent again after a 503, or taken up by the turn job', async () => {
    const proxy = cutting();
    const direct = straight();
    const sessionId = sessionIdOf('default', 'web', 'c-begin');
    sb().fake.respondWith(echoModel);
    await sb().browser.session();
    // The begin offers the new record (running, step 0): no other command of the message has it.
    const cut = proxy.cutAt('"status":"running"');
    const posting = postMessage(sb().browser, 'c-begin', 'book it', 'm-begin');
    await cut;
    proxy.heal();
    const first = await posting;
    await untilReady(sb().url);
    // A 503 says the message may not be stored: the page sends it again with the same id.
    if (first.status !== 202) expect((await postMessage(sb().browser, 'c-begin', 'book it', 'm-begin')).status).toBe(202);

    await sb().settled('c-begin', 1, 20_000);
    expect(responses(await sb().events('c-begin'))).toEqual(['Echo: book it']);
    await waitFor(async () => (await direct.exists(`${sb().prefix}:s:${sessionId}:turn`)) === 0, 'the turn record to be cleared');
    const log = await createEventLog({ redis: direct, prefix: sb().prefix }).read(sessionId, 1000);
    const started = log.filter((entry) => entry.type === 'turn_started').map((entry) => entry.turnId);
    expect(started).toHaveLength(1);
    expect(log.filter((entry) => entry.type === 'turn_settled').map((entry) => entry.turnId)).toEqual(started);
  }, 40_000);
});
