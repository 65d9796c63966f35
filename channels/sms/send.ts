/**
 * The SMS channel's sender: one Twilio REST call per rendered message, with a status callback,
 * media as short-lived signed links to our artifacts, and Twilio's errors mapped to the outbound
 * queue's contract: 429 (with its `Retry-After`) and 5xx retried, other 4xx final and recorded
 * (21610, the number opted out, also marks it opted out here). Nothing goes to an opted-out number.
 */
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelRateLimit, ChannelSender } from '../../queues/outbound-types.ts';
import { prefetchedRead } from '../kit/prefetched-read.ts';
import { createSmsFindSent } from './find-sent.ts';
import { readSmsPayload } from './sms-payload.ts';
import type { SmsStore } from './sms-store.ts';
import { RETRY_AFTER_FIELD, type TwilioClient } from './twilio-client.ts';

/** Options of {@link createSmsSender}. */
export interface SmsSenderOptions {
  readonly client: TwilioClient;
  /** `TWILIO_SMS_FROM`: a number (`+15550100`) or a Messaging Service SID (`MG…`). */
  readonly from: string | undefined;
  readonly store: Pick<SmsStore, 'isOptedOut' | 'optOut'>;
  /** A signed link to an artifact, for MMS media. */
  readonly artifactUrl: (artifactId: string) => string;
  /** Where Twilio posts delivery statuses (`<PUBLIC_URL>/webhooks/twilio/status`). */
  readonly statusCallback: string;
}

/**
 * Sends per second from one long code: about one message (segment) a second. A Messaging Service
 * spreads over its numbers, so it gets more.
 */
export const LONG_CODE_RATE_LIMIT: ChannelRateLimit = { max: 1, durationMs: 1000 };
const SERVICE_RATE_LIMIT: ChannelRateLimit = { max: 10, durationMs: 1000 };

function senderFields(from: string, to: string): { from: string } | { messagingServiceSid: string } {
  if (from.startsWith('MG')) return { messagingServiceSid: from };
  return { from: to.startsWith('whatsapp:') ? `whatsapp:${from}` : from };
}

function deliveryErrorOf(error: unknown): DeliveryError {
  const failure = error as { status?: unknown; code?: unknown; message?: unknown; details?: Record<string, unknown> };
  if (typeof failure.status !== 'number') {
    return new DeliveryError(`Twilio could not be reached: ${error instanceof Error ? error.message : String(error)}`);
  }
  const status = failure.status;
  const providerCode = typeof failure.code === 'number' || typeof failure.code === 'string' ? String(failure.code) : undefined;
  const retryAfter = Number(failure.details?.[RETRY_AFTER_FIELD]);
  const common = { status, ...(providerCode === undefined ? {} : { providerCode }), ...(Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {}) };
  const what = typeof failure.message === 'string' ? failure.message : `HTTP ${status}`;
  if (status === 429) return new DeliveryError(`Twilio throttled the send: ${what}`, { ...common, rateLimited: true });
  if (status >= 500) return new DeliveryError(`Twilio failed (HTTP ${status}): ${what}`, common);
  return new DeliveryError(`Twilio refused the message (${providerCode ?? status}): ${what}`, { ...common, permanent: true });
}

/** Creates the sender. */
export function createSmsSender(options: SmsSenderOptions): ChannelSender {
  // Opt-outs are kept per address as people write from it: an SMS STOP and a WhatsApp STOP are separate.
  const optedOut = prefetchedRead(async (delivery) => options.store.isOptedOut(readSmsPayload(delivery.payload).to));
  return {
    rateLimit: options.from?.startsWith('MG') === true ? SERVICE_RATE_LIMIT : LONG_CODE_RATE_LIMIT,
    // A send whose outcome was lost is looked for in Twilio's message list (find-sent.ts).
    findSent: createSmsFindSent({ client: options.client, from: options.from }),
    prefetch: optedOut.start,
    async send(delivery) {
      const payload = readSmsPayload(delivery.payload);
      const { from } = options;
      if (from === undefined) throw new DeliveryError('TWILIO_SMS_FROM is not set: there is no number to send from.', { permanent: true });
      if (await optedOut.take(delivery)) throw new DeliveryError(`${payload.to} opted out (STOP); nothing is sent until it sends START.`, { permanent: true, providerCode: '21610' });
      try {
        const message = await options.client.messages.create({
          to: payload.to,
          body: payload.body,
          statusCallback: options.statusCallback,
          ...senderFields(from, payload.to),
          ...(payload.mediaArtifactIds === undefined || payload.mediaArtifactIds.length === 0 ? {} : { mediaUrl: payload.mediaArtifactIds.map(options.artifactUrl) }),
        });
        return { providerMessageId: message.sid, details: { status: message.status, segments: message.numSegments } };
      } catch (error) {
        const failure = deliveryErrorOf(error);
        if (failure.providerCode === '21610') await options.store.optOut(payload.to);
        throw failure;
      }
    },
  };
}
