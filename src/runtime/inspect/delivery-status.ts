/**
 * A provider's later word on a message the service sent (queued, sent, delivered, read, failed,
 * undelivered), written as a `delivery_status` entry of the session the message belongs to; a
 * failure also marks the conversation failed while its turn is the last one.
 */
import type { EventLog } from '../session/event-log.ts';
import type { ConversationMarks } from './conversation-index.ts';
import type { SentMessages } from './sent-messages.ts';

/** The statuses providers report, in switchboard's words. */
export type DeliveryStatusName = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'undelivered';

/** One status report of a channel. */
export interface ProviderDeliveryStatus {
  /** The channel that sent the message (`sms`, `whatsapp`). */
  readonly channel: string;
  /** The provider's id of the message (a Twilio SID, a `wamid.…`). */
  readonly providerMessageId: string;
  readonly status: DeliveryStatusName;
  /** The provider's error code of a failure, when given. */
  readonly errorCode?: string;
  /** When the provider says it happened (or the report arrived), ISO 8601. */
  readonly at: string;
}

/** Options of {@link createDeliveryStatusRecorder}. */
export interface DeliveryStatusRecorderOptions {
  readonly sentMessages: Pick<SentMessages, 'find'>;
  readonly log: Pick<EventLog, 'append'>;
  /** Marks the conversation failed on `failed` and `undelivered`. Default: not marked. */
  readonly conversations?: Pick<ConversationMarks, 'markDeliveryFailed'>;
}

/**
 * A recorder of status reports: resolves `true` when the report's message was found and its
 * `delivery_status` entry written, `false` for a message this service does not know (or forgot).
 */
export function createDeliveryStatusRecorder(options: DeliveryStatusRecorderOptions): (report: ProviderDeliveryStatus) => Promise<boolean> {
  return async (report) => {
    const ref = await options.sentMessages.find(report.channel, report.providerMessageId);
    if (ref === undefined) return false;
    const { channel, providerMessageId, status, errorCode, at } = report;
    await options.log.append(ref.sessionId, {
      type: 'delivery_status',
      ...(ref.turnId === undefined ? {} : { turnId: ref.turnId }),
      data: { channel, providerMessageId, status, ...(errorCode === undefined ? {} : { errorCode }), at, idempotencyKey: ref.idempotencyKey },
    });
    if ((status === 'failed' || status === 'undelivered') && ref.turnId !== undefined) {
      await options.conversations?.markDeliveryFailed(ref.sessionId, ref.turnId);
    }
    return true;
  };
}
