/**
 * The email channel's sender: one {@link EmailPayload} as one SMTP submission through nodemailer,
 * `multipart/alternative` (text and HTML) plus attachments read from the artifact store.
 *
 * Headers: `Message-ID` (the payload's fixed id, else one derived from the idempotency key, so a
 * resend keeps it), `In-Reply-To`, `References`, `Auto-Submitted` (RFC 3834, so other
 * responders never answer the bot) and `X-Auto-Response-Suppress: All` (the same for Exchange).
 * No `Precedence`: answers go to one person who wrote to us, and `Precedence: bulk` would mark
 * them as mass mail (filtered, given lower priority); the two headers above already stop
 * auto-replies.
 *
 * SMTP failures become {@link DeliveryError}s: no reply (connection, timeout, TLS, login) and 4xx
 * replies are retried; 5xx replies (but 503, a protocol hiccup) are permanent, with the reply code
 * as `providerCode` and the server's words in the message.
 */
import type { NodemailerError } from 'nodemailer';
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelRateLimit, ChannelSender } from '../../queues/outbound-types.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { escapeHtmlText } from '../kit/render/html-escape.ts';
import { readEmailPayload, type EmailAttachment, type EmailPayload } from './email-payload.ts';
import type { MessageIds } from './message-ids.ts';
import type { SmtpTransporter } from './smtp-transport.ts';

/**
 * Default limit of the whole channel: 30 mails a minute. Microsoft 365 allows a mailbox 30
 * submissions a minute, the tightest of the common providers; raise it for a relay (SES, Postmark).
 */
export const EMAIL_RATE_LIMIT: ChannelRateLimit = { max: 30, durationMs: 60_000 };

/**
 * Default limit per recipient: 20 mails a minute. A busy conversation with approvals sends a
 * person a handful a minute; a loop with another robot (which `Auto-Submitted` should prevent)
 * stays slow.
 */
export const EMAIL_DESTINATION_RATE_LIMIT: ChannelRateLimit = { max: 20, durationMs: 60_000 };

/** Earliest retry after a 4xx reply, in milliseconds, by reply code; other codes use the queue's backoff. */
const RETRY_AFTER_MS: Readonly<Record<number, number>> = {
  421: 60_000, // service not available, closing the connection: often a rate limit
  450: 5 * 60_000, // mailbox unavailable (busy, or greylisted)
  451: 5 * 60_000, // local error in processing; greylisting answers 451 4.7.1 and wants minutes
  452: 15 * 60_000, // insufficient storage (mailbox full)
};

/** What {@link EmailSenderOptions.onSent} is told after the server accepted a mail. */
export interface SentMail {
  /** The Message-ID the mail went out with, with its `<>`. */
  readonly messageId: string;
  readonly payload: EmailPayload;
  readonly destination: Destination;
}

/** Options of {@link createEmailSender}. */
export interface EmailSenderOptions {
  /** Made by the caller, e.g. with `createSmtpTransport(env.email.smtp)`; closed by the caller. */
  readonly transport: Pick<SmtpTransporter, 'sendMail'>;
  /** The `From:` header (`EMAIL_FROM`), e.g. `Concierge <bot@example.com>`. */
  readonly from: string;
  /** Derives the Message-ID of a payload without a fixed one from the delivery's idempotency key. */
  readonly messageIds: MessageIds;
  /** Where attachment bytes are read by `artifactId`. */
  readonly artifacts: Pick<ArtifactStore, 'get'>;
  /**
   * Called once the server accepted a mail (e.g. to remember which conversation our Message-ID
   * belongs to). Its failure does not fail the send (the mail is out); it is kept in the receipt's
   * `details.onSentError`.
   */
  readonly onSent?: (sent: SentMail) => Promise<void>;
  /** Default {@link EMAIL_RATE_LIMIT}. */
  readonly rateLimit?: ChannelRateLimit;
  /** Default {@link EMAIL_DESTINATION_RATE_LIMIT}. */
  readonly destinationRateLimit?: ChannelRateLimit;
}

interface LoadedAttachments {
  readonly files: { filename: string; content: Buffer; contentType: string }[];
  readonly missing: string[];
}

async function loadAttachments(attachments: readonly EmailAttachment[], store: Pick<ArtifactStore, 'get'>): Promise<LoadedAttachments> {
  const loaded: LoadedAttachments = { files: [], missing: [] };
  for (const attachment of attachments) {
    const found = attachment.artifactId === undefined ? undefined : await store.get(attachment.artifactId);
    if (found === undefined) loaded.missing.push(attachment.name);
    else loaded.files.push({ filename: attachment.name, content: found.bytes, contentType: found.meta.mimeType });
  }
  return loaded;
}

/** The payload's text and HTML with one line per attachment that could not be loaded, before the signature. */
function withMissing(payload: EmailPayload, missing: readonly string[]): { text: string; html: string } {
  if (missing.length === 0) return { text: payload.text, html: payload.html };
  const lines = missing.map((name) => `${name} could not be attached: it is no longer available.`);
  const cut = payload.text.lastIndexOf('\n-- \n');
  const text = cut < 0 ? `${payload.text}\n\n${lines.join('\n')}` : `${payload.text.slice(0, cut)}\n\n${lines.join('\n')}${payload.text.slice(cut)}`;
  const paragraphs = lines.map((line) => `<p>${escapeHtmlText(line)}</p>`).join('\n');
  const end = payload.html.lastIndexOf('</body>');
  const html = end < 0 ? `${payload.html}\n${paragraphs}` : `${payload.html.slice(0, end)}${paragraphs}\n${payload.html.slice(end)}`;
  return { text, html };
}

/** A nodemailer failure as the outbound queue's {@link DeliveryError}. */
export function smtpDeliveryError(thrown: unknown): DeliveryError {
  const error = (thrown instanceof Error ? thrown : new Error(String(thrown))) as NodemailerError;
  const code = error.responseCode;
  const words = (error.response ?? error.message).trim();
  if (code === undefined || code < 400 || code === 503 || error.code === 'EAUTH') {
    return new DeliveryError(`The mail server could not be reached or used: ${words}`, { ...(code === undefined ? {} : { providerCode: String(code) }), cause: thrown });
  }
  if (code >= 500) return new DeliveryError(`The mail server refused the message: ${words}`, { permanent: true, providerCode: String(code), cause: thrown });
  const retryAfterMs = RETRY_AFTER_MS[code];
  return new DeliveryError(`The mail server deferred the message: ${words}`, {
    providerCode: String(code),
    rateLimited: code === 421,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    cause: thrown,
  });
}

/**
 * Creates the sender. Not idempotent at the provider: SMTP has no way to drop a repeated
 * submission, so an attempt whose outcome is unknown is not sent again.
 *
 * @example
 * const sender = createEmailSender({ transport: createSmtpTransport(env.email.smtp), from: env.email.from, messageIds, artifacts });
 */
export function createEmailSender(options: EmailSenderOptions): ChannelSender {
  return {
    rateLimit: options.rateLimit ?? EMAIL_RATE_LIMIT,
    destinationRateLimit: options.destinationRateLimit ?? EMAIL_DESTINATION_RATE_LIMIT,
    providerIdempotent: false,
    async send(delivery) {
      const payload = readEmailPayload(delivery.payload);
      if (payload === undefined) throw new DeliveryError('The delivery is not an email payload.', { permanent: true });
      const messageId = payload.messageId ?? options.messageIds.forDelivery(delivery.idempotencyKey);
      const { files, missing } = await loadAttachments(payload.attachments, options.artifacts);
      const info = await options.transport
        .sendMail({
          from: options.from,
          to: payload.to,
          subject: payload.subject,
          ...withMissing(payload, missing),
          messageId,
          ...(payload.inReplyTo === undefined ? {} : { inReplyTo: payload.inReplyTo }),
          ...(payload.references === undefined ? {} : { references: [...payload.references] }),
          headers: { 'Auto-Submitted': payload.autoSubmitted, 'X-Auto-Response-Suppress': 'All' },
          attachments: files,
        })
        .catch((thrown: unknown) => {
          throw smtpDeliveryError(thrown);
        });
      const onSentError = await options.onSent?.({ messageId, payload, destination: delivery.destination }).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const details = { response: info.response, accepted: info.accepted.map(String), ...(onSentError === undefined ? {} : { onSentError }) };
      return { providerMessageId: messageId, details };
    },
  };
}
