/**
 * The web chat's event stream across a Redis outage. A stream open during the outage stays open
 * and gets the answer to a message sent after Redis is back (the server's subscription comes back
 * by itself); a stream opened during the outage is refused with 503 and `Retry-After` at once; a
 * stream reopened with `Last-Event-ID` afterwards gets exactly what came after that id.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { openSse, type SseClient } from '../web/sse-client.ts';
import { echoModel, jsonOf, postMessage, timedFetch, untilReady } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const redis = useRestartableRedis();
const sb = useSwitchboard({ appDir, redisUrl: () => redis().url });

/** Whether the stream carried a response part with `text`. */
const hasResponse = (stream: SseClient, text: string): boolean =>
  stream.events.some((event) => event.event === 'part' && event.data.includes(JSON.stringify(text)));

/** The ids of a stream's events, checked to be strictly increasing (no repeat, no reordering). */
function increasingIds(stream: SseClient): string[] {
  const ids = stream.events.map((event) => event.id ?? '');
  const asNumbers = ids.map((id) => id.split('-').map(Number) as [number, number]);
  asNumbers.slice(1).forEach(([ms, seq], index) => {
    const [prevMs, prevSeq] = asNumbers[index] ?? [0, 0];
    expect(ms > prevMs || (ms === prevMs && seq > prevSeq), `event ids out of order: ${ids.join(', ')}`).toBe(true);
  });
  return ids;
}

describe('an event stream when Redis goes away and comes back', () => {
  it('keeps an open stream alive, refuses new ones with 503 meanwhile, and resumes reopened ones without loss or repeats', async () => {
    sb().fake.respondWith(echoModel);
    const browser = sb().browser;
    await browser.session();
    const cookie = { cookie: browser.cookie ?? '' };
    const url = `${sb().url}/api/chat/c-sse/events`;
    const open = await openSse(url, cookie);
    expect(open.response.status).toBe(200);
    expect((await postMessage(browser, 'c-sse', 'one', 'm-one')).status).toBe(202);
    await open.waitFor((stream) => hasResponse(stream, 'Echo: one'), 20_000);
    await sb().settled('c-sse', 1);
    await open.waitFor((stream) => stream.events.some((event) => event.event === 'turn' && event.data.includes('"complete"')), 10_000);
    const lastBefore = open.events.at(-1)?.id ?? '';

    await redis().stop();
    const refused = await timedFetch(url, { headers: { ...cookie, accept: 'text/event-stream' } });
    expect(refused.status, refused.body).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(jsonOf(refused)).toMatchObject({ error: { code: 'redis.unavailable' } });

    await redis().start();
    await untilReady(sb().url);
    expect((await postMessage(browser, 'c-sse', 'two', 'm-two')).status).toBe(202);
    await open.waitFor((stream) => hasResponse(stream, 'Echo: two'), 20_000);
    await sb().settled('c-sse', 2);
    // Every event of the second turn, its settlement last, has reached the open stream.
    await open.waitFor((stream) => stream.events.filter((event) => event.event === 'turn' && event.data.includes('"complete"')).length >= 2, 10_000);
    const ids = increasingIds(open);

    // A browser that lost its stream during the outage reconnects with the last id it saw.
    const resumed = await openSse(url, { ...cookie, 'last-event-id': lastBefore });
    expect(resumed.response.status).toBe(200);
    const after = ids.slice(ids.indexOf(lastBefore) + 1);
    await resumed.waitFor((stream) => stream.events.length >= after.length, 10_000);
    expect(increasingIds(resumed)).toEqual(after);
    expect(hasResponse(resumed, 'Echo: two')).toBe(true);
    expect(hasResponse(resumed, 'Echo: one')).toBe(false);
    open.close();
    resumed.close();
  }, 60_000);
});
