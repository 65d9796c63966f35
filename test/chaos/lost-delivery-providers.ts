/**
 * The fake providers of `lost-delivery.test.ts`, behind one shape: the fake Slack (posts found by
 * their metadata) and the fake Twilio (messages found in the Messages list by content). Each gives
 * the deliveries to send, counts what it holds of each, and can hold back the answer to one send
 * after taking it.
 */
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { deliveryTag } from '../../queues/sent-lookup.ts';
import { startFakeSlack } from '../fakes/fake-slack.ts';
import { startFakeTwilio } from '../fakes/fake-twilio.ts';
import type { LostDeliveryProvider } from './lost-delivery-worker.ts';

/** One fake provider, as the test drives it. */
export interface ChaosProvider {
  /** The channel id (and outbound queue) it serves. */
  readonly channel: 'slack' | 'sms';
  /** What a worker process needs to reach it. */
  readonly config: LostDeliveryProvider;
  /** The `index`-th delivery, keyed `key`, each to its own conversation. */
  delivery(key: string, index: number): OutboundDelivery;
  /** How many messages the provider holds for `key`. */
  count(key: string): number;
  /** Holds back the answer to the send of `key`, once taken. */
  holdAnswerTo(key: string): void;
  heldCount(): number;
  releaseHeld(): void;
  close(): Promise<void>;
}

const textOf = (key: string): string => `Delivery ${key}`;
const tagOf = (metadata: unknown): string | undefined => (metadata as { event_payload?: { tag?: string } } | undefined)?.event_payload?.tag;

/** The fake Slack, its `ts` from the clock (the look-up reads history from a time on). */
export async function slackProvider(): Promise<ChaosProvider> {
  const botToken = 'xoxb-lost-delivery';
  const fake = await startFakeSlack({ botToken, tsFrom: 'clock' });
  return {
    channel: 'slack',
    config: { kind: 'slack', apiUrl: fake.url, botToken },
    delivery(key, index) {
      const channel = `C0LOST${String(index).padStart(3, '0')}`;
      return { channel: 'slack', destination: { channel: 'slack', address: channel }, idempotencyKey: key, payload: { op: 'post', channel, text: textOf(key) } };
    },
    count: (key) => fake.messages().filter((message) => tagOf(message.metadata) === deliveryTag(key)).length,
    holdAnswerTo: (key) => {
      fake.holdNext('chat.postMessage', 1, (args) => tagOf(args['metadata']) === deliveryTag(key));
    },
    heldCount: () => fake.heldCount(),
    releaseHeld: () => {
      fake.releaseHeld();
    },
    close: () => fake.close(),
  };
}

/** The fake Twilio, sending through a Messaging Service (ten a second, not one). */
export async function twilioProvider(): Promise<ChaosProvider> {
  const accountSid = `AC${'c'.repeat(32)}`;
  const authToken = 'twilio-lost-delivery';
  const fake = await startFakeTwilio({ accountSid, authToken });
  return {
    channel: 'sms',
    config: { kind: 'sms', apiUrl: fake.url, accountSid, authToken, from: `MG${'d'.repeat(32)}` },
    delivery(key, index) {
      const to = `+1555010${String(index).padStart(4, '0')}`;
      return { channel: 'sms', destination: { channel: 'sms', address: to }, idempotencyKey: key, payload: { to, body: textOf(key), kind: 'answer', segments: 1 } };
    },
    count: (key) => fake.messages().filter((message) => message.body === textOf(key)).length,
    holdAnswerTo: (key) => {
      fake.holdNext(1, (params) => params['Body'] === textOf(key));
    },
    heldCount: () => fake.heldCount(),
    releaseHeld: () => {
      fake.releaseHeld();
    },
    close: () => fake.close(),
  };
}
