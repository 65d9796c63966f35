/**
 * Redis goes away between the two steps of accepting a message: the message is in its session's
 * mailbox, but its turn was never asked for. The sender got 503; nothing answers the message on
 * its own, and the same message sent again (same id) is answered exactly once.
 *
 * The cut is placed exactly with a proxy between the service and Redis that drops every
 * connection at the command that asks for the message's turn (see `cutting-proxy.ts`): the harness
 * runs role `all`, so that is the inline claim of the session's lock (`queues/inline-turns.ts`),
 * which leaves in the same socket write as the accept; the proxy passes the accept on and cuts there.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inlineTurnsKey } from '../../queues/inline-turns.ts';
import { turnJobId } from '../../queues/job-ids.ts';
import { sessionLockKey } from '../../queues/session-lock.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { waitFor } from '../support/wait-for.ts';
import { useServiceBehindCuttingProxy } from './behind-cutting-proxy.ts';
import { lastUserText } from '../support/scenario-model.ts';
import { echoModel, jsonOf, postMessage, postUntilAccepted, responses } from './outage-kit.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const { proxy: cutting, direct: straight, sb } = useServiceBehindCuttingProxy(appDir);

describe('Redis lost between storing a message and asking for its turn', () => {
  it('answers 503, leaves the message unanswered until it is sent again, then answers it exactly once', async () => {
    const proxy = cutting();
    const direct = straight();
    sb().fake.respondWith(echoModel);
    await sb().browser.session();
    expect((await postMessage(sb().browser, 'c-half', 'first', 'm-first')).status).toBe(202);
    await sb().settled('c-half', 1);
    // The first turn's inline run ends by looking at the session's mailbox once more after its
    // lock is released: were the next message there by then, it would rightly take it up. Let it end.
    const sessionId = sessionIdOf('default', 'web', 'c-half');
    const watched = inlineTurnsKey(sb().prefix);
    await waitFor(async () => (await direct.zscore(watched, sessionId)) === null, 'the first inline run to end');

    const injectionId = 'web:c-half:m-half';
    const cut = proxy.cutAt(sessionLockKey(sb().prefix, sessionId));
    const refused = await postMessage(sb().browser, 'c-half', 'the half-accepted one', 'm-half');
    await cut;
    expect(refused.status, refused.body).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(jsonOf(refused)).toMatchObject({ error: { code: 'redis.unavailable' } });
    // Half accepted: the id is remembered and the message is in the mailbox, but no turn was asked
    // for: no lock taken, no run watched, no job.
    expect(await direct.exists(`${sb().prefix}:inj:${injectionId}`)).toBe(1);
    expect(await direct.exists(`${sb().prefix}:s:${sessionId}:pending`)).toBe(1);
    expect(await direct.exists(sessionLockKey(sb().prefix, sessionId))).toBe(0);
    expect(await direct.zscore(watched, sessionId)).toBeNull();
    expect(await direct.exists(`${sb().prefix}:turns:${turnJobId(injectionId)}`)).toBe(0);

    proxy.heal();
    // Redis is back and the workers take work again: another conversation is answered…
    const other = await postUntilAccepted(sb().browser, 'c-other', 'elsewhere', 'm-other');
    expect(other.status, other.body).toBe(202);
    await sb().settled('c-other', 1);
    // …while the refused message was not answered on its own.
    expect(responses(await sb().events('c-half'))).toEqual(['Echo: first']);

    const again = await postMessage(sb().browser, 'c-half', 'the half-accepted one', 'm-half');
    expect(again.status, again.body).toBe(202);
    expect(jsonOf(again)).toMatchObject({ duplicate: true });
    const events = await sb().settled('c-half', 2);
    expect(responses(events)).toEqual(['Echo: first', 'Echo: the half-accepted one']);
    const asked = sb().fake.messageRequests.filter((request) => lastUserText(request).includes('the half-accepted one'));
    expect(asked).toHaveLength(1);
  }, 60_000);
});
