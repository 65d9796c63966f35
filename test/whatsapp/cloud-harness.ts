/**
 * A running switchboard with the WhatsApp channel in cloud mode (`WHATSAPP_MODE=cloud`) for one
 * test file or `describe` block: an app folder (the example app unless given), the fake model
 * answering with the given script, the fake Graph API the channel sends through, and one process
 * of role `all` with the web and WhatsApp channels. Webhooks are posted signed with the app secret,
 * as Meta posts them; posting a message also tells the fake Graph API that its sender wrote (Meta
 * opens the sender's 24-hour window when it receives the message), unless told otherwise.
 * Everything is started before the tests of the scope and stopped after them.
 */
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { webChannel } from '../../channels/web/index.ts';
import { whatsappChannel } from '../../channels/whatsapp/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic, FakeScript } from '../fakes/fake-anthropic-types.ts';
import { startFakeGraph } from '../fakes/fake-graph.ts';
import type { FakeGraph } from '../fakes/fake-graph-types.ts';
import { postWhatsAppWebhook, type WebhookAnswer, type WebhookBody } from '../fakes/whatsapp-webhook.ts';
import { openExampleApp } from '../support/open-example-app.ts';
import { uniquePrefix } from '../support/redis.ts';

/** Options of {@link useWhatsAppCloudSwitchboard}. */
export interface WhatsAppCloudHarnessOptions {
  readonly redisUrl: () => string;
  readonly script: FakeScript;
  /** `WHATSAPP_APP_SECRET`. */
  readonly appSecret: string;
  /** `WHATSAPP_TOKEN` (the fake Graph API checks it on every request). Default `EAAG-cloud-test-token`. */
  readonly token?: string;
  /** `WHATSAPP_VERIFY_TOKEN`. Default `cloud-test-verify-token`. */
  readonly verifyToken?: string;
  /**
   * The app folder (`SWITCHBOARD_APP`), read in `beforeAll`. Default a copy of the example app that
   * lets anyone write on WhatsApp (`senders: open`; the example's own default is pairing).
   */
  readonly appDir?: () => string;
}

/** How {@link WhatsAppCloudHarness.post} posts a webhook. */
export interface PostOptions {
  /** Replaces the signature header (a forged one); `null` sends none. */
  readonly signature?: string | null;
  /**
   * When the fake Graph API is told each message's sender last wrote: `'now'` (default: Meta got
   * the message just now), a time, or `false` to tell it nothing.
   */
  readonly wrote?: 'now' | Date | false;
}

/** What a test gets. */
export interface WhatsAppCloudHarness {
  readonly prefix: string;
  readonly fake: FakeAnthropic;
  readonly graph: FakeGraph;
  /** A command connection to the service's Redis. */
  readonly redis: Redis;
  readonly service: Service;
  /** `<service>/webhooks/whatsapp`. */
  readonly webhookUrl: string;
  /** POSTs `body` to the webhook, signed with the app secret, after telling the fake Graph API its senders wrote. */
  post(body: WebhookBody, options?: PostOptions): Promise<WebhookAnswer>;
}

/** The senders (digits) of the messages in `body`. */
function sendersOf(body: WebhookBody): string[] {
  return body.entry.flatMap((entry) => entry.changes.flatMap((change) => (change.value.messages ?? []).map((message) => String(message['from']))));
}

/** Starts everything before the scope's tests and stops it after. */
export function useWhatsAppCloudSwitchboard(options: WhatsAppCloudHarnessOptions): () => WhatsAppCloudHarness {
  let harness: WhatsAppCloudHarness | undefined;
  let service: Service | undefined;
  const prefix = uniquePrefix('wa-cloud');
  const token = options.token ?? 'EAAG-cloud-test-token';
  let opened: string | undefined;

  beforeAll(async () => {
    const fake = await startFakeAnthropic();
    fake.respondWith(options.script);
    const graph = await startFakeGraph({ token });
    opened = options.appDir === undefined ? openExampleApp('switchboard-wa-cloud-', ['whatsapp']) : undefined;
    const appDir = options.appDir?.() ?? opened ?? '';
    const env = loadEnv(
      {
        ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent',
        SWITCHBOARD_APP: appDir,
        WHATSAPP_MODE: 'cloud', WHATSAPP_TOKEN: token, WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId,
        WHATSAPP_APP_SECRET: options.appSecret, WHATSAPP_VERIFY_TOKEN: options.verifyToken ?? 'cloud-test-verify-token', WHATSAPP_API_URL: graph.apiUrl,
      },
      { appDir },
    );
    service = await startService({ env, role: 'all', redisUrl: options.redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels: [webChannel, whatsappChannel] });
    const webhookUrl = `${service.url ?? ''}/webhooks/whatsapp`;
    harness = {
      prefix, fake, graph, service, webhookUrl,
      redis: new Redis(options.redisUrl()),
      post(body, post = {}) {
        const wrote = post.wrote ?? 'now';
        if (wrote !== false) for (const sender of sendersOf(body)) graph.contactWrote(sender, wrote === 'now' ? new Date() : wrote);
        return postWhatsAppWebhook(webhookUrl, body, { appSecret: options.appSecret, ...(post.signature === undefined ? {} : { signature: post.signature }) });
      },
    };
  });

  afterAll(async () => {
    await service?.close();
    await harness?.redis.quit();
    await harness?.graph.close();
    await harness?.fake.close();
    if (opened !== undefined) rmSync(opened, { recursive: true, force: true });
  });

  return () => {
    if (harness === undefined) throw new Error('The WhatsApp cloud harness is used before its beforeAll ran.');
    return harness;
  };
}
