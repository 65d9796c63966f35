/**
 * Finds a Twilio message whose send had no recorded outcome. Twilio takes no key of ours that it
 * lists again (the message resource does not show the `StatusCallback`, and twilio-node sends no
 * idempotency token), so the message is recognised by what it is: the Messages list filtered by
 * `To` (and `From`, for a number), newest first, searched for an outbound message with the same
 * body and number of media, from the same Messaging Service when one sends, created within the
 * window in which the earlier attempt called Twilio.
 *
 * Two deliveries of the same text to the same number within that window (about a minute and a
 * half) cannot be told apart: the first one found counts as sent. Twilio keeps what it was given,
 * so a body Twilio rewrote (smart encoding, link shortening on a Messaging Service) is not
 * recognised and is sent again.
 */
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelSender, SendIntent, SentLookup } from '../../queues/outbound-types.ts';
import { absentOnceSettled, SILENT_SETTLE_MS } from '../../queues/sent-lookup.ts';
import { readSmsPayload } from './sms-payload.ts';
import type { ListedMessage, TwilioClient } from './twilio-client.ts';

/**
 * How long after an intent a message sent under it is sure to be listed, in ms: the client's 15 s
 * timeout and a margin for Twilio's listing.
 */
export const TWILIO_SETTLE_MS = 60_000;

/** Room for clocks that disagree (and Twilio's whole seconds), in ms. */
const CLOCK_SKEW_MS = 15_000;

/** Most messages to the number read, newest first. */
const MAX_LISTED = 200;

/** Options of {@link createSmsFindSent}. */
export interface SmsFindSentOptions {
  readonly client: Pick<TwilioClient, 'messages'>;
  /** `TWILIO_SMS_FROM`: a number or a Messaging Service SID (`MG…`), as the sender uses it. */
  readonly from: string | undefined;
  /** See {@link TWILIO_SETTLE_MS}; in ms. Default {@link TWILIO_SETTLE_MS}. */
  readonly settleMs?: number;
}

/** The `From` Twilio lists for a send to `to`, or `undefined` with a Messaging Service. */
function listedFrom(from: string, to: string): string | undefined {
  if (from.startsWith('MG')) return undefined;
  return to.startsWith('whatsapp:') ? `whatsapp:${from}` : from;
}

/** A lookup failure as the queue takes it: Twilio's 4xx refusals are permanent (`unknown`), the rest retried. */
function lookupError(error: unknown): DeliveryError {
  const failure = error as { status?: unknown; code?: unknown; message?: unknown };
  const what = typeof failure.message === 'string' ? failure.message : String(error);
  if (typeof failure.status !== 'number') return new DeliveryError(`Twilio could not be reached to look up an earlier send: ${what}`);
  const status = failure.status;
  const providerCode = typeof failure.code === 'number' || typeof failure.code === 'string' ? String(failure.code) : undefined;
  const permanent = status >= 400 && status < 500 && status !== 429;
  return new DeliveryError(`Twilio did not list the earlier sends (HTTP ${String(status)}): ${what}`, { status, permanent, ...(providerCode === undefined ? {} : { providerCode }) });
}

/**
 * Creates the SMS sender's `findSent`; see the file's comment.
 *
 * @example
 * const sender = { ...createSmsSender(options), findSent: createSmsFindSent({ client, from, settleMs: 1000 }) };
 */
export function createSmsFindSent(options: SmsFindSentOptions): NonNullable<ChannelSender['findSent']> {
  const settleMs = options.settleMs ?? TWILIO_SETTLE_MS;
  return async (delivery, intent: SendIntent): Promise<SentLookup> => {
    const payload = readSmsPayload(delivery.payload);
    const { from } = options;
    // Without a sender nothing could have been sent: the send refuses before calling Twilio.
    if (from === undefined) return { kind: 'absent' };
    const sentFrom = listedFrom(from, payload.to);
    let listed: readonly ListedMessage[];
    try {
      listed = await options.client.messages.list({ to: payload.to, ...(sentFrom === undefined ? {} : { from: sentFrom }), pageSize: 50, limit: MAX_LISTED });
    } catch (error) {
      throw lookupError(error);
    }
    const earliest = intent.since - CLOCK_SKEW_MS;
    const latest = intent.since + settleMs + CLOCK_SKEW_MS;
    const media = payload.mediaArtifactIds?.length ?? 0;
    const match = listed
      .filter((message) => {
        const created = message.dateCreated.getTime();
        return created >= earliest && created <= latest && message.direction.startsWith('outbound') && message.body === payload.body && Number(message.numMedia) === media && (sentFrom !== undefined || message.messagingServiceSid === from);
      })
      .toSorted((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime())[0];
    if (match !== undefined) return { kind: 'sent', receipt: { providerMessageId: match.sid, details: { status: match.status, segments: match.numSegments } } };
    const oldest = listed.at(-1);
    if (listed.length >= MAX_LISTED && oldest !== undefined && oldest.dateCreated.getTime() >= earliest) {
      return { kind: 'unknown', reason: `Twilio listed ${String(MAX_LISTED)} messages to ${payload.to} since the intent without a match` };
    }
    return absentOnceSettled(intent, settleMs, { afterSilenceMs: SILENT_SETTLE_MS });
  };
}
