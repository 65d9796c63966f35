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
import { smsKeyword } from './keywords.ts';
import { keepMedia, type MediaOptions } from './media.ts';
import type { SmsStore } from './sms-store.ts';
import { EMPTY_TWIML, messageTwiml, readTwilioWebhook, type WebhookCheck, type WebhookParams } from './webhook.ts';

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
}

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
  if (!/^[A-Z]{2}[0-9a-f]{32}$/.test(params['MessageSid'] ?? '') || params['From'] === undefined) return { status: 400, reason: 'not an inbound message' };
  if (ourNumber !== undefined && bare(params['To'] ?? '') !== ourNumber) return { status: 403, reason: 'sent to a number that is not ours' };
  return undefined;
}

async function takeMessage(params: WebhookParams, idempotencyToken: string | undefined, options: SmsRoutesOptions, res: ServerResponse): Promise<void> {
  const from = params['From'] ?? '';
  const body = params['Body'] ?? '';
  const keyword = smsKeyword(body, await options.store.isOptedOut(from));
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
    res.setHeader('retry-after', '2');
    answer(res, 503, 'not accepted, try again', 'text/plain; charset=utf-8');
    return;
  }
  answer(res, 200, EMPTY_TWIML);
}

/** The two webhook routes. */
export function createSmsRoutes(options: SmsRoutesOptions): Route[] {
  const refuse = (res: ServerResponse, status: number, reason: string): void => {
    options.logger.warn({ channel: 'sms', status, reason }, 'sms: webhook refused');
    answer(res, status, reason, 'text/plain; charset=utf-8');
  };
  return [
    {
      method: 'POST',
      pattern: '/webhooks/twilio/sms',
      async handler({ req, res }) {
        const reading = await readTwilioWebhook(req, options.check);
        if (!reading.ok) {
          refuse(res, reading.status, reading.reason);
          return;
        }
        const { params } = reading;
        const problem = inboundProblem(params, options.ourNumber);
        if (problem !== undefined) {
          refuse(res, problem.status, problem.reason);
          return;
        }
        await takeMessage(params, reading.idempotencyToken, options, res);
      },
    },
    {
      method: 'POST',
      pattern: '/webhooks/twilio/status',
      async handler({ req, res }) {
        const reading = await readTwilioWebhook(req, options.check);
        if (!reading.ok) {
          refuse(res, reading.status, reading.reason);
          return;
        }
        const { params } = reading;
        const messageSid = params['MessageSid'] ?? params['SmsSid'];
        const status = params['MessageStatus'] ?? params['SmsStatus'];
        if (messageSid === undefined || status === undefined) {
          refuse(res, 400, 'not a status callback');
          return;
        }
        const errorCode = params['ErrorCode'];
        const to = params['To'];
        await options.store.recordStatus({ messageSid, status, updatedAt: options.clock().toISOString(), ...(errorCode === undefined ? {} : { errorCode }), ...(to === undefined ? {} : { to }) });
        // 21610: the recipient replied STOP to the carrier; nothing more is sent until they opt in.
        if (errorCode === '21610' && to !== undefined) await options.store.optOut(to);
        answer(res, 200, EMPTY_TWIML);
      },
    },
  ];
}
