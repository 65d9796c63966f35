/**
 * One outbound worker process for `lost-delivery.test.ts`: the real outbound queue and a real
 * channel sender, with its real look-up, against a fake provider: Slack (`@slack/web-api`) or
 * Twilio (the `twilio` SDK). Run as `node test/chaos/lost-delivery-worker.ts '<json config>'`;
 * prints `ready <pid>` once its workers run, closes on SIGTERM. The deliveries named in `parkKeys`
 * never reach the provider in this process: their send waits forever once the ledger holds its
 * intent, so the test can kill the process exactly between the intent and the provider call.
 */
import { createSlackFindSent } from '../../channels/slack/find-sent.ts';
import { createSlackClient } from '../../channels/slack/slack-client.ts';
import { createSlackSender } from '../../channels/slack/send.ts';
import { createSlackStore } from '../../channels/slack/slack-store.ts';
import { createSmsFindSent } from '../../channels/sms/find-sent.ts';
import { createSmsSender } from '../../channels/sms/send.ts';
import { createTwilioClient } from '../../channels/sms/twilio-client.ts';
import { createOutbound } from '../../queues/outbound-queue.ts';
import type { ChannelSender } from '../../queues/outbound-types.ts';
import { redisOptions } from '../../queues/redis-connections.ts';
import { createRedisClient } from '../../src/runtime/redis/redis-client.ts';
import { serveUntilStopped } from '../support/child-ready.ts';

/** The provider a worker sends to. */
export type LostDeliveryProvider =
  | { readonly kind: 'slack'; readonly apiUrl: string; readonly botToken: string }
  | { readonly kind: 'sms'; readonly apiUrl: string; readonly accountSid: string; readonly authToken: string; readonly from: string };

/** The JSON argument. */
export interface LostDeliveryWorkerConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly provider: LostDeliveryProvider;
  /** Idempotency keys whose send never starts here. */
  readonly parkKeys: readonly string[];
  /** BullMQ job lock, and time between stalled-job checks, in ms. */
  readonly jobLockMs: number;
  readonly stalledIntervalMs: number;
  /** How long after an intent the provider's "absent" is believed, in ms. */
  readonly settleMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as LostDeliveryWorkerConfig;
const redis = createRedisClient(config.redisUrl);

/** The channel's own sender, its look-up settling after `settleMs`. */
function channelSender(provider: LostDeliveryProvider): ChannelSender {
  if (provider.kind === 'slack') {
    const client = createSlackClient({ botToken: provider.botToken, apiUrl: provider.apiUrl });
    const store = createSlackStore({ redis, prefix: `${config.prefix}:slack` });
    return { ...createSlackSender({ client, store }), findSent: createSlackFindSent({ client, store, settleMs: config.settleMs }) };
  }
  const client = createTwilioClient({ accountSid: provider.accountSid, authToken: provider.authToken, apiUrl: provider.apiUrl });
  const sms = createSmsSender({
    client,
    from: provider.from,
    store: { isOptedOut: () => Promise.resolve(false), optOut: () => Promise.resolve() },
    artifactUrl: (id) => `http://127.0.0.1:9/artifacts/${id}`,
    statusCallback: 'http://127.0.0.1:9/webhooks/twilio/status',
  });
  return { ...sms, findSent: createSmsFindSent({ client, from: provider.from, settleMs: config.settleMs }) };
}

const real = channelSender(config.provider);
const parked = new Set(config.parkKeys);
const sender: ChannelSender = {
  ...real,
  send: (delivery) => (parked.has(delivery.idempotencyKey) ? new Promise(() => undefined) : real.send(delivery)),
};
const outbound = createOutbound({
  connection: redisOptions(config.redisUrl),
  prefix: config.prefix,
  senders: { [config.provider.kind]: sender },
  backoffDelayMs: 20,
  maxBackoffDelayMs: 500,
  jobLockDurationMs: config.jobLockMs,
  stalledIntervalMs: config.stalledIntervalMs,
  onError: (error) => {
    process.stderr.write(`outbound: ${error.message}\n`);
  },
});
outbound.startWorkers();
serveUntilStopped(async () => {
  await outbound.close();
  redis.disconnect();
});
