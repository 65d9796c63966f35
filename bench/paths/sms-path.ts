/**
 * The SMS path: a signed Twilio webhook (`POST /webhooks/twilio/sms`, `X-Twilio-Signature` over
 * `PUBLIC_URL`) to the `Messages.json` call on the fake Twilio REST API. The bot sends from a
 * Messaging Service (`TWILIO_SMS_FROM=MG…`), which the channel allows 10 messages a second,
 * against one a second from a single number: the bench's rate stays under it.
 */
import { smsChannel } from '../../channels/sms/index.ts';
import { startFakeTwilio } from '../../test/fakes/fake-twilio.ts';
import { inboundSmsParams, postTwilioWebhook } from '../../test/fakes/twilio-webhook.ts';
import { keyIn, type ChannelPath } from './channel-path.ts';
import { portOf, watchRequests } from './http-watch.ts';

const ACCOUNT = `AC${'b'.repeat(32)}`;
const TOKEN = 'bench-paths-twilio-token';
const SERVICE = `MG${'c'.repeat(32)}`;
const BOT = '+15005550006';
const PUBLIC_URL = 'https://bench.example.com';

/** The SMS path. */
export const smsPath: ChannelPath = {
  name: 'SMS (Twilio)',
  label: 'sms',
  note: 'SMS: provider calls are the requests the fake Twilio REST API received; sent from a Messaging Service (10 msg/s allowed by the channel)',
  async start(context) {
    const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN, numbers: [BOT] });
    let calls = 0;
    let listener: ((key: string) => void) | undefined;
    const stopWatching = watchRequests(portOf(twilio.url), (request) => {
      calls += 1;
      if (request.method !== 'POST' || !request.path.endsWith('/Messages.json')) return;
      const key = keyIn(new URLSearchParams(request.body).get('Body') ?? '');
      if (key !== undefined) listener?.(key);
    });
    const service = await context.startService(
      { PUBLIC_URL, TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_SMS_FROM: SERVICE, TWILIO_API_URL: twilio.url },
      [smsChannel],
    );
    const path = '/webhooks/twilio/sms';
    return {
      async send(key, index) {
        const from = `+1555020${String(index).padStart(4, '0')}`;
        const params = inboundSmsParams({ from, to: BOT, body: key, accountSid: ACCOUNT, messagingServiceSid: SERVICE });
        const answer = await postTwilioWebhook({ url: `${service.url ?? ''}${path}`, signedUrl: `${PUBLIC_URL}${path}`, authToken: TOKEN, params });
        if (answer.status !== 200) throw new Error(`the Twilio webhook of ${key} was answered ${String(answer.status)}: ${answer.body}`);
      },
      listen(next) {
        listener = next;
      },
      providerCalls: () => calls,
      async close() {
        await service.close();
        stopWatching();
        await twilio.close();
      },
    };
  },
};
