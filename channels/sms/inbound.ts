/**
 * The SMS channel's webhooks. `POST /webhooks/twilio/sms`: verify, then the carrier keywords (opt
 * out, opt in, help: never seen by an actor), then media, normalise and enqueue, and only then the
 * empty TwiML answer (the reply goes out through the REST API); a failed enqueue is a 503 so Twilio
 * can retry. `POST /webhooks/twilio/status`: delivery statuses saved forward only.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Route } from '../../src/runtime/http/router.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { DeliveryStatusName, ProviderDeliveryStatus } from '../../src/runtime/inspect/delivery-status.ts';
import { inboundKeyword } from './keywords.ts';
import { keepMedia, type MediaOptions } from './media.ts';
import { isSmsAddress } from './sms-payload.ts';
import type { SmsStore } from './sms-store.ts';
import { EMPTY_TWIML, messageTwiml, readTwilioWebhook, type WebhookCheck, type WebhookParams } from './webhook.ts';
import { REDIS_RETRY_AFTER_SECONDS } from '../../src/runtime/redis/redis-unavailable.ts';

/** Options of {@link createSmsRoutes}. */
export interface SmsRoutesOptions {
  readonly check: WebhookCheck;
  /** `TWILIO_SMS_FROM` when it is a number: messages to another number are refused. */
  readonly ourNumber?: string;
  readonly store: SmsStore;
  readonly media: MediaOptions;
  readonly normalise: (event: unknown) => Injection;
  readonly enqueue: (injection: Injection) => Promise<unknown>;
  /** The answer to HELP / INFO. */
  readonly helpText: string;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  readonly clock: () => Date;
  /** Told each status that moved a message forward, in switchboard's words. Default: nobody. */
  readonly onStatus?: (report: ProviderDeliveryStatus) => Promise<void>;
}

/** Twilio's message statuses in switchboard's words; others (`receiving`, `received`) are not reported. */
const TWILIO_STATUSES: Readonly<Record<string, DeliveryStatusName>> = {
  accepted: 'queued', scheduled: 'queued', queued: 'queued', sending: 'queued',
  sent: 'sent', delivered: 'delivered', read: 'read', failed: 'failed', undelivered: 'undelivered', canceled: 'failed',
};

function answer(res: ServerResponse, status: number, body: string, type = 'text/xml; charset=utf-8'): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.end(body);
}

function bare(address: string): string {
  return address.startsWith('whatsapp:') ? address.slice('whatsapp:'.length) : address;
}

/** Why an inbound webhook is refused after its signature checked out, or `undefined`. */
function inboundProblem(params: WebhookParams, ourNumber: string | undefined): { status: 400 | 403; reason: string } | undefined {
  if (!/^[A-Z]{2}[0-9a-f]{32}$/.test(params['MessageSid'] ?? '')) return { status: 400, reason: 'not an inbound message' };
  // Checked before the keywords and the media, as the normaliser will: a sender that is no number starts nothing.
  if (!isSmsAddress(params['From'] ?? '')) return { status: 400, reason: 'not an inbound message: From is not a number' };
  if (ourNumber !== undefined && bare(params['To'] ?? '') !== ourNumber) return { status: 403, reason: 'sent to a number that is not ours' };
  return undefined;
}

async function takeMessage(params: WebhookParams, idempotencyToken: string | undefined, options: SmsRoutesOptions, res: ServerResponse): Promise<void> {
  const from = params['From'] ?? '';
  const body = params['Body'] ?? '';
  const keyword = await inboundKeyword(body, () => options.store.isOptedOut(from));
  if (keyword !== undefined) {
    if (keyword === 'opt-out') await options.store.optOut(from);
    if (keyword === 'opt-in') await options.store.optIn(from);
    options.logger.info({ channel: 'sms', from, keyword }, 'sms: keyword');
    answer(res, 200, keyword === 'help' ? messageTwiml(options.helpText) : EMPTY_TWIML);
    return;
  }
  const media = await keepMedia(params, options.media);
  const injection = options.normalise({
    type: 'sms', messageSid: params['MessageSid'] ?? '', from, to: params['To'] ?? '', body,
    attachments: media.stored, notes: media.notes, receivedAt: options.clock().toISOString(),
    ...(idempotencyToken === undefined ? {} : { idempotencyToken }),
  });
  try {
    await options.enqueue(injection);
  } catch (error) {
    options.logger.warn({ err: error, channel: 'sms', injection: injection.id }, 'sms: not enqueued; Twilio may retry');
    res.setHeader('retry-after', String(REDIS_RETRY_AFTER_SECONDS));
    answer(res, 503, 'not accepted, try again', 'text/plain; charset=utf-8');
    return;
  }
  answer(res, 200, EMPTY_TWIML);
}

/**
 * Takes a status callback: the status saved forward only (and, when it moved forward, reported to
 * `onStatus`); 21610 marks the number opted out.
 */
async function takeStatus(params: WebhookParams, options: SmsRoutesOptions): Promise<{ status: 400; reason: string } | undefined> {
  const messageSid = params['MessageSid'] ?? params['SmsSid'];
  const status = params['MessageStatus'] ?? params['SmsStatus'];
  if (messageSid === undefined || status === undefined) return { status: 400, reason: 'not a status callback' };
  const errorCode = params['ErrorCode'];
  const to = params['To'];
  const updatedAt = options.clock().toISOString();
  const saved = await options.store.recordStatus({ messageSid, status, updatedAt, ...(errorCode === undefined ? {} : { errorCode }), ...(to === undefined ? {} : { to }) });
  const named = TWILIO_STATUSES[status];
  if (saved && named !== undefined) await options.onStatus?.({ channel: 'sms', providerMessageId: messageSid, status: named, at: updatedAt, ...(errorCode === undefined ? {} : { errorCode }) });
  // 21610: the recipient replied STOP to the carrier; nothing more is sent until they opt in.
  if (errorCode === '21610' && to !== undefined) await options.store.optOut(to);
  return undefined;
}

/** The two webhook routes. */
export function createSmsRoutes(options: SmsRoutesOptions): Route[] {
  const refuse = (res: ServerResponse, status: number, reason: string): void => {
    options.logger.warn({ channel: 'sms', status, reason }, 'sms: webhook refused');
    answer(res, status, reason, 'text/plain; charset=utf-8');
  };
  /** A route that verifies the webhook, then hands its parameters on. */
  const webhook = (pattern: string, take: (params: WebhookParams, token: string | undefined, res: ServerResponse) => Promise<void>): Route => ({
    method: 'POST',
    pattern,
    async handler({ req, res }) {
      const reading = await readTwilioWebhook(req, options.check);
      if (reading.ok) await take(reading.params, reading.idempotencyToken, res);
      else refuse(res, reading.status, reading.reason);
    },
  });
  return [
    webhook('/webhooks/twilio/sms', async (params, token, res) => {
      const problem = inboundProblem(params, options.ourNumber);
      if (problem === undefined) await takeMessage(params, token, options, res);
      else refuse(res, problem.status, problem.reason);
    }),
    webhook('/webhooks/twilio/status', async (params, _token, res) => {
      const problem = await takeStatus(params, options);
      if (problem === undefined) answer(res, 200, EMPTY_TWIML);
      else refuse(res, problem.status, problem.reason);
    }),
  ];
}
