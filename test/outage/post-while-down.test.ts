/**
 * While Redis is down, a message is refused at once with 503, `Retry-After` and a coded error, on
 * the web chat and on a webhook channel (SMS); once Redis is back, the same message sent again is
 * answered exactly once, without restarting anything.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inboundSmsParams } from '../fakes/twilio-webhook.ts';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';
import { encodeTwilioForm } from '../fakes/twilio-webhook.ts';
import { useSwitchboard } from '../support/switchboard-harness.ts';
import { echoModel, FAIL_FAST_MS, jsonOf, postMessage, postUntilAccepted, responses, timedFetch } from './outage-kit.ts';
import { useRestartableRedis } from './restartable-redis.ts';

const appDir = fileURLToPath(new URL('../fixtures/loop-app/', import.meta.url));
const PUBLIC_URL = 'https://switchboard.example';
const ACCOUNT = `AC${'1'.repeat(32)}`;
const TOKEN = 'b'.repeat(32);
const BOT = '+15550100000';
const redis = useRestartableRedis();
const sb = useSwitchboard({
  appDir,
  redisUrl: () => redis().url,
  env: { PUBLIC_URL, TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: BOT, TWILIO_API_URL: 'http://127.0.0.1:9' },
});

/** Texts the bot as Twilio would (signed over the public URL). */
function text(body: string, messageSid: string) {
  const params = inboundSmsParams({ from: '+15550101001', to: BOT, body, accountSid: ACCOUNT, messageSid });
  return timedFetch(`${sb().url}/webhooks/twilio/sms`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
      'x-twilio-signature': getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}/webhooks/twilio/sms`, params),
    },
    body: encodeTwilioForm(params),
  });
}

describe('a message sent while Redis is down', () => {
  it('is refused at once with 503, Retry-After and redis.unavailable, and answered once when sent again after Redis is back', async () => {
    sb().fake.respondWith(echoModel);
    await sb().browser.session();
    expect((await postMessage(sb().browser, 'c-down', 'before the outage', 'm-before')).status).toBe(202);
    await sb().settled('c-down', 1);

    await redis().stop();
    const refused = await postMessage(sb().browser, 'c-down', 'during the outage', 'm-during');
    expect(refused.status, refused.body).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(jsonOf(refused)).toMatchObject({ error: { code: 'redis.unavailable' } });
    // Answered by the service's own fail-fast path, well before the client's deadline (which
    // timedFetch enforces itself, so only a tighter bound can fail here).
    expect(refused.elapsedMs).toBeLessThan(FAIL_FAST_MS);

    const sms = await text('an SMS during the outage', `SM${'d'.repeat(32)}`);
    expect(sms.status, sms.body).toBe(503);
    expect(sms.headers.get('retry-after')).toBe('2');

    await redis().start();
    // The person sends it again (the page's Retry button keeps the id) until Redis is really back.
    const retried = await postUntilAccepted(sb().browser, 'c-down', 'during the outage', 'm-during');
    expect(retried.status, retried.body).toBe(202);
    const events = await sb().settled('c-down', 2, 30_000);
    expect(responses(events)).toEqual(['Echo: before the outage', 'Echo: during the outage']);
  }, 60_000);
});
