/**
 * From a fetched mail to an enqueued injection: read it, drop what must not be answered (our own
 * mail, automatic mail, a sender over the rate cap, a Message-ID already taken in), authenticate
 * the sender, place it in its conversation, match approval replies, keep its attachments, then
 * normalise and enqueue. Mail that starts nothing is logged with the reason; nothing throws for bad
 * mail, only for a failure to store or enqueue (the listener then reads the mail again).
 */
import type { Logger } from 'pino';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { megabytes } from '../kit/kept-files.ts';
import type { ApprovalStore } from '../../src/runtime/approvals/approval-types.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { EmailEvent } from './email-event.ts';
import type { EmailStore } from './email-store.ts';
import type { FetchedMail } from './imap-watch.ts';
import { automatedMailReason } from './loop-guards.ts';
import type { MessageIds } from './message-ids.ts';
import { readMail, type MailFacts } from './read-mail.ts';
import { approvalReplyFacts } from './approval-reply.ts';
import { keepAttachments } from './keep-attachments.ts';
import { verifySender, type SenderAuthOptions } from './sender-auth.ts';
import { resolveConversation } from './threads.ts';

/** Options of {@link createMailIntake}. */
export interface MailIntakeOptions {
  readonly store: EmailStore;
  readonly artifacts: Pick<ArtifactStore, 'put'>;
  readonly approvals: Pick<ApprovalStore, 'get'>;
  readonly messageIds: MessageIds;
  /** The bot's address, lower-case. */
  readonly botAddress: string;
  /** Sender authentication settings (trusted authserv-id, DNS resolver). */
  readonly auth: Omit<SenderAuthOptions, 'from'>;
  readonly normalise: (event: unknown) => Injection | undefined;
  readonly enqueue: (injection: Injection) => Promise<unknown>;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** Most mails taken from one sender per window. Default 30 per hour. */
  readonly rateCap?: { readonly max: number; readonly windowMs: number };
  /** Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** Why a mail starts nothing, or `undefined` when it is to be taken in. */
async function dropReason(facts: MailFacts, options: MailIntakeOptions, now: Date): Promise<string | undefined> {
  if (facts.from === undefined) return 'no usable From address';
  if (facts.from === options.botAddress) return 'our own mail';
  const automated = automatedMailReason({ headers: facts.headers, from: facts.from, ownAddresses: [options.botAddress] });
  if (automated !== undefined) return `automatic mail (${automated})`;
  const { max, windowMs } = options.rateCap ?? { max: 30, windowMs: 3_600_000 };
  if (!(await options.store.underRateCap(facts.from, max, windowMs, now.getTime()))) return `sender over the rate cap of ${max} mails per ${windowMs / 60_000} minutes`;
  return undefined;
}

function notes(mail: FetchedMail, facts: MailFacts, kept: readonly string[]): string {
  const lines = [...kept];
  if (mail.tooLarge) lines.push(`(This message was ${megabytes(mail.sizeBytes)}, over the size this service reads, so only its subject was read.)`);
  if (facts.unparsed !== undefined) lines.push('(Parts of this message could not be read; only its plain text was kept.)');
  if (facts.text === '' && lines.length === 0) lines.push('(The message had no text.)');
  return [facts.text, ...lines].filter((line) => line !== '').join('\n\n');
}

async function eventOf(mail: FetchedMail, facts: MailFacts & { readonly from: string }, options: MailIntakeOptions, now: Date): Promise<EmailEvent> {
  const verdict = await verifySender(mail.source, { ...options.auth, from: facts.from });
  const conversationKey = await resolveConversation(options.store, facts.from, facts);
  const kept = await keepAttachments(facts.attachments, options.artifacts);
  const approval = await approvalReplyFacts(facts, { messageIds: options.messageIds, approvals: options.approvals });
  return {
    type: 'email',
    uidValidity: mail.uidValidity,
    uid: mail.uid,
    messageId: facts.messageId,
    references: [...facts.references, ...(facts.inReplyTo !== undefined && !facts.references.includes(facts.inReplyTo) ? [facts.inReplyTo] : [])].join(' '),
    subject: facts.subject,
    from: facts.from,
    ...(facts.fromName === undefined ? {} : { fromName: facts.fromName }),
    conversationKey,
    text: notes(mail, facts, kept.notes),
    attachments: kept.stored,
    verified: verdict.verified,
    basis: verdict.basis,
    ...(approval === undefined ? {} : { approval }),
    receivedAt: now.toISOString(),
  };
}

/**
 * Creates the function the IMAP listener calls for every mail.
 *
 * @example
 * const take = createMailIntake({ store, artifacts, approvals, messageIds, botAddress, auth: {}, normalise, enqueue, logger });
 * watchMailbox({ ...imapOptions, take });
 */
export function createMailIntake(options: MailIntakeOptions): (mail: FetchedMail) => Promise<void> {
  const clock = options.clock ?? (() => new Date());
  return async (mail) => {
    const facts = await readMail(mail.source, { fallbackMessageId: `<uid-${mail.uidValidity}-${mail.uid}@imap.invalid>` });
    const where = { uidValidity: mail.uidValidity, uid: mail.uid, messageId: facts.messageId };
    if (await options.store.seen(facts.messageId)) {
      options.logger.info(where, 'email: already taken in; skipped');
      return;
    }
    const now = clock();
    const dropped = await dropReason(facts, options, now);
    if (dropped !== undefined || facts.from === undefined) {
      options.logger.info({ ...where, reason: dropped }, 'email: not answered');
    } else {
      const injection = options.normalise(await eventOf(mail, { ...facts, from: facts.from }, options, now));
      if (injection !== undefined) await options.enqueue(injection);
      options.logger.info({ ...where, injection: injection?.id, kind: injection?.kind }, 'email: taken in');
    }
    await options.store.markSeen(facts.messageId);
  };
}
