/**
 * A web chat session this process already knows is not read from Redis again for a message: the
 * message's accept checks, in its own script, that the session is still there. Revoked elsewhere
 * (another process signed the browser in again, or an operator deleted it), the next message is
 * answered 401 and nothing of it is stored, echoed or answered.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { useRedis } from '../support/redis.ts';
import { part, reply, respond } from '../support/scenario-model.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';

const appDir = fileURLToPath(new URL('../fixtures/followup-app/', import.meta.url));
const redisUrl = useRedis();
const sb = useSwitchboard({ appDir, redisUrl });

/** The texts of a conversation's messages and answers, in stream order. */
async function texts(conversationId: string): Promise<string[]> {
  return (await sb().events(conversationId)).flatMap(({ event }) => {
    if (event.type === 'message') return [event.text];
    if (event.type === 'part') return [event.part.text ?? ''];
    return [];
  });
}

/** Whether the model was ever asked about `text`. */
function asked(text: string): boolean {
  return sb().fake.messageRequests.some((request) => JSON.stringify(request.body.messages).includes(text));
}

describe('a web chat session revoked while this process remembers it', () => {
  it('answers the next message 401 and stores, echoes and answers nothing of it', async () => {
    sb().fake.respondWith(() => reply(respond([part('response', 'Noted.')], 'complete')));
    const { browser, prefix } = sb();
    expect((await sb().post('revoked-1', 'first', 'r1')).status).toBe(202);
    await sb().settled('revoked-1');

    const [sid] = (browser.cookie ?? '').slice('sb_session='.length).split('.');
    await sb().redis().del(`${prefix}:web:sid:${sid ?? ''}`);
    const refused = await sb().post('revoked-1', 'second', 'r2');
    expect(refused.status).toBe(401);
    expect(refused.body['error']).toMatchObject({ code: 'http.unauthorized' });

    // A new session of the same page is let in, and the model hears of its message, never the refused one.
    const other = await sb().post('revoked-2', 'third', 'r3', sb().client());
    expect(other.status).toBe(202);
    await sb().settled('revoked-2');
    expect([asked('first'), asked('second'), asked('third')]).toEqual([true, false, true]);
    expect(await texts('revoked-1')).toEqual(['first', 'Noted.']);
    // The refused message's id was not even remembered: sent again on a valid session, it is taken.
    expect([await sb().redis().exists(`${prefix}:inj:web:revoked-1:r1`), await sb().redis().exists(`${prefix}:inj:web:revoked-1:r2`)]).toEqual([1, 0]);
    expect(await sb().redis().llen(`${prefix}:s:${sessionIdOf('default', 'web', 'revoked-1')}:pending`)).toBe(0);
    // Counted as taken in: the two messages stored, not the refused one.
    const metrics = await (await fetch(`${sb().url}/metrics`)).text();
    expect(metrics).toContain('switchboard_injections_total{channel="web",duplicate="false"} 2\n');
    expect(sb().fake.problems).toEqual([]);
  });
});
