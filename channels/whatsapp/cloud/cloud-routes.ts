/**
 * The Cloud API webhook at `/webhooks/whatsapp`. `GET`: Meta's subscription handshake (the
 * `hub.challenge` echoed when `hub.verify_token` is ours). `POST`: the signature checked over the
 * raw body before anything is read; then, for our business number only, every status saved
 * forward only and every message (its medium kept first) handed to the intake, and only then 200.
 * Anything that could not be taken (Redis down) is a 503 with `Retry-After`, so Meta sends the
 * webhook again; a redelivered message is dropped by the intake at enqueue.
 */
import type { ProviderDeliveryStatus } from '../../../src/runtime/inspect/delivery-status.ts';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { Route } from '../../../src/runtime/http/router.ts';
import { safeEqual } from '../../../src/runtime/crypto/signing.ts';
import type { WhatsAppIntake } from '../whatsapp-event.ts';
import { cloudEvent, receivedAt } from './cloud-event.ts';
import { keepCloudMedia, type CloudMediaOptions } from './cloud-media.ts';
import { readCloudMessage } from './inbound-message.ts';
import { readSignedWebhook } from './read-webhook.ts';
import { CLOUD_STATUS_RANK, type CloudDeliveryStatus, type CloudStatusName, type CloudStatuses } from './statuses.ts';
import { readCloudWebhook, type CloudChange, type CloudMessage, type CloudStatusUpdate } from './webhook-payload.ts';

/** Where Meta posts (the callback URL is `<PUBLIC_URL>/webhooks/whatsapp`). */
export const CLOUD_WEBHOOK_PATH = '/webhooks/whatsapp';

/** Seconds Meta is asked to wait before sending a webhook again that could not be taken. */
const RETRY_AFTER_SECONDS = 5;

/** Options of {@link createCloudRoutes}. */
export interface CloudRoutesOptions {
  /** `WHATSAPP_APP_SECRET`: the key of `X-Hub-Signature-256`. */
  readonly appSecret: string;
  /** `WHATSAPP_VERIFY_TOKEN`: what `hub.verify_token` must be. */
  readonly verifyToken: string;
  /** `WHATSAPP_PHONE_NUMBER_ID`: changes for other numbers of the business account are ignored. */
  readonly phoneNumberId: string;
  readonly intake: WhatsAppIntake;
  readonly statuses: Pick<CloudStatuses, 'record' | 'rememberTag'>;
  /** How media are fetched and kept. */
  readonly media: CloudMediaOptions;
  readonly logger: Pick<Logger, 'debug' | 'info' | 'warn'>;
  readonly clock: () => Date;
  /** Told each status that moved a message forward. Default: nobody. */
  readonly onStatus?: (report: ProviderDeliveryStatus) => Promise<void>;
}

function answer(res: ServerResponse, status: number, text: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', ...headers });
  res.end(text);
}

/** The saved form of a status update, or `undefined` for a status this channel does not keep. */
function deliveryStatus(update: CloudStatusUpdate, now: Date): CloudDeliveryStatus | undefined {
  if (!Object.hasOwn(CLOUD_STATUS_RANK, update.status)) return undefined;
  const error = update.errors[0];
  return {
    wamid: update.id,
    status: update.status as CloudStatusName,
    at: receivedAt(update.timestamp, now),
    ...(update.recipientId === undefined ? {} : { recipient: `+${update.recipientId}` }),
    ...(error?.code === undefined ? {} : { errorCode: String(error.code) }),
    ...(error?.title === undefined ? {} : { errorTitle: error.title }),
  };
}

async function takeStatus(update: CloudStatusUpdate, options: CloudRoutesOptions): Promise<void> {
  // Any status of a tagged send says the send went out: what a lost send's look-up asks.
  if (update.callbackData !== undefined) await options.statuses.rememberTag(update.callbackData, update.id);
  const status = deliveryStatus(update, options.clock());
  if (status === undefined) {
    options.logger.debug({ channel: 'whatsapp', wamid: update.id, status: update.status }, 'whatsapp: status not kept');
    return;
  }
  if (status.status === 'failed') options.logger.warn({ channel: 'whatsapp', wamid: status.wamid, errors: update.errors }, 'whatsapp: message failed');
  if (!(await options.statuses.record(status))) return;
  await options.onStatus?.({ channel: 'whatsapp', providerMessageId: status.wamid, status: status.status, at: status.at, ...(status.errorCode === undefined ? {} : { errorCode: status.errorCode }) });
}

async function takeMessage(message: CloudMessage, change: CloudChange, options: CloudRoutesOptions): Promise<void> {
  const log = { channel: 'whatsapp', wamid: message.id, type: message.type };
  if (message.errors.length > 0) options.logger.warn({ ...log, errors: message.errors }, 'whatsapp: message came with errors');
  const reading = readCloudMessage(message);
  if (reading.kind === 'ignore') {
    options.logger.debug({ ...log, reason: reading.reason }, 'whatsapp: message starts no turn');
    return;
  }
  const media = reading.kind === 'message' ? await keepCloudMedia(message, options.media) : { stored: [], notes: [] };
  const event = cloudEvent({ message, reading, contacts: change.contacts, media, now: options.clock() });
  try {
    await options.intake.take(event);
  } catch (error) {
    // A message that cannot be read will not be readable next time either: dropped, not redelivered.
    if (!(error instanceof SwitchboardError) || error.code !== 'channel.invalid') throw error;
    options.logger.warn({ ...log, err: error }, 'whatsapp: message not readable; dropped');
  }
}

async function takeChange(change: CloudChange, options: CloudRoutesOptions): Promise<void> {
  if (change.phoneNumberId !== options.phoneNumberId) {
    options.logger.info({ channel: 'whatsapp', phoneNumberId: change.phoneNumberId }, 'whatsapp: webhook for another business number ignored');
    return;
  }
  for (const update of change.statuses) await takeStatus(update, options);
  for (const message of change.messages) await takeMessage(message, change, options);
}

/** Takes every change of a verified webhook body for our number; rejects when something could not be kept. */
async function takeWebhook(body: unknown, options: CloudRoutesOptions): Promise<void> {
  const webhook = readCloudWebhook(body);
  if (webhook.object !== 'whatsapp_business_account' || webhook.skipped > 0) {
    options.logger.info({ channel: 'whatsapp', object: webhook.object, skipped: webhook.skipped }, 'whatsapp: webhook parts not read');
  }
  if (webhook.object !== 'whatsapp_business_account') return;
  for (const change of webhook.changes) await takeChange(change, options);
}

/** The handshake: the challenge when the mode and token are right, else 403. */
function verifySubscription(url: URL, options: CloudRoutesOptions, res: ServerResponse): void {
  const mode = url.searchParams.get('hub.mode');
  const token = url.searchParams.get('hub.verify_token') ?? '';
  const challenge = url.searchParams.get('hub.challenge') ?? '';
  if (mode === 'subscribe' && safeEqual(token, options.verifyToken)) {
    options.logger.info({ channel: 'whatsapp' }, 'whatsapp: webhook subscription verified');
    answer(res, 200, challenge);
    return;
  }
  options.logger.warn({ channel: 'whatsapp', mode }, 'whatsapp: webhook subscription refused');
  answer(res, 403, 'verification failed');
}

/**
 * The webhook routes.
 *
 * @example
 * const routes = createCloudRoutes({ appSecret, verifyToken, phoneNumberId, intake, statuses, media: { client, artifacts }, logger, clock: () => new Date() });
 */
export function createCloudRoutes(options: CloudRoutesOptions): Route[] {
  return [
    {
      method: 'GET',
      pattern: CLOUD_WEBHOOK_PATH,
      handler: ({ url, res }) => {
        verifySubscription(url, options, res);
        return Promise.resolve();
      },
    },
    {
      method: 'POST',
      pattern: CLOUD_WEBHOOK_PATH,
      async handler({ req, res }) {
        const reading = await readSignedWebhook(req, options.appSecret);
        if (!reading.ok) {
          options.logger.warn({ channel: 'whatsapp', status: reading.status, reason: reading.reason }, 'whatsapp: webhook refused');
          answer(res, reading.status, reading.reason);
          return;
        }
        try {
          await takeWebhook(reading.body, options);
        } catch (error) {
          options.logger.warn({ channel: 'whatsapp', err: error }, 'whatsapp: webhook not taken; Meta will send it again');
          answer(res, 503, 'not taken, try again', { 'retry-after': String(RETRY_AFTER_SECONDS) });
          return;
        }
        answer(res, 200, 'ok');
      },
    },
  ];
}
