/**
 * The abuse bounds are set through the service's options, not new environment variables: `http`
 * (slow clients) in `startService`, the stream caps in the web channel module
 * (`createWebChannelModule`). Proved on a real web process.
 */
import { describe, expect, it } from 'vitest';
import { createWebChannelModule } from '../../channels/web/index.ts';
import { useRedis } from '../support/redis.ts';
import { openSse } from '../web/sse-client.ts';
import { createWebClient } from '../web/web-client.ts';
import { openRaw, rawJsonBody, within } from './raw-socket.ts';
import { useWebService } from './web-service.ts';

const redisUrl = useRedis();
const web = useWebService({
  redisUrl,
  service: {
    http: { headersTimeoutMs: 200, requestTimeoutMs: 400, checkIntervalMs: 50 },
    channels: [createWebChannelModule({ streamLimits: { maxPerIdentity: 1, retryAfterSeconds: 3 } })],
  },
});

describe('service options', () => {
  it('http: the header bound given cuts a slow client', async () => {
    const raw = await openRaw(web().port);
    await raw.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    raw.trickle('X-Slow: 1\r\n', 40);
    const answer = await within(raw.closed, 8_000, 'closing the slow client');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(rawJsonBody(answer)).toMatchObject({ error: { code: 'http.request_timeout' } });
  });

  it('the web channel module: the stream cap given refuses a second stream of one browser', async () => {
    const browser = createWebClient(web().url);
    await browser.session();
    const first = await openSse(`${web().url}/api/chat/options/events`, { cookie: browser.cookie ?? '' });
    try {
      expect(first.response.status).toBe(200);
      const second = await browser.get('/api/chat/options/events');
      expect([second.status, second.headers.get('retry-after')]).toEqual([429, '3']);
      expect(await second.json()).toMatchObject({ error: { code: 'http.too_many_streams', details: { scope: 'identity', limit: 1 } } });
    } finally {
      first.close();
    }
  });
});
