/**
 * What the outbound processor does with a delivery whose earlier send has no recorded outcome: the
 * ledger holds an intent (`sending`) and nothing after it, because a worker died between recording
 * the intent and recording the receipt. The provider may or may not have the message.
 *
 * The sender is asked (`ChannelSender.findSent`) where the provider can tell:
 * - found: its receipt is recorded and the delivery completes without a second send;
 * - not there: the delivery is sent under a new intent, which replaces the open one only if no
 *   other attempt did so first (`DeliveryLedger.resume`), so two attempts never both send;
 * - too early to tell: the attempt fails and is retried after the wait the sender asked for;
 * - the provider cannot tell (or there is no lookup): the channel's rule decides, `at-least-once`
 *   sends again, `at-most-once` fails the delivery for good with reason `unconfirmed` and keeps a
 *   note for the session's next turn, so the person hears that a message may be missing.
 */
import { SwitchboardError } from '../src/protocol/errors.ts';
import { DeliveryError } from './delivery-error.ts';
import { MAX_EXCERPT_CHARS, type DeliveryFailures } from './delivery-failures.ts';
import type { DeliveryLedger, LedgerBegin } from './delivery-ledger.ts';
import type { ChannelSender, OutboundDelivery, SentLookup } from './outbound-types.ts';

/** An earlier attempt may have sent this delivery and the provider cannot say: final, never resent. */
export class UnconfirmedSendError extends SwitchboardError {}

/** What {@link resolveUnconfirmed} works with. */
export interface UnconfirmedContext {
  readonly sender: ChannelSender;
  readonly ledger: Pick<DeliveryLedger, 'resume' | 'recordReceipt'>;
  readonly failures: Pick<DeliveryFailures, 'noteForSession'>;
  readonly delivery: OutboundDelivery;
  /** The job of this attempt, recorded with a new intent. */
  readonly jobId: string;
  /** When the open intent was recorded, in epoch milliseconds (as the ledger reported it). */
  readonly since: number;
  /** From when the intent's process surely sent nothing more, when the ledger knows (see `SendIntent`). */
  readonly silentSince?: number;
  /** Whether this attempt is the job's last: a lookup that fails or must wait then ends as `unconfirmed`. */
  readonly lastAttempt: boolean;
}

/** Payload fields that hold a message's text, in the order they are tried, by channel shape. */
const TEXT_FIELDS = ['text', 'body', 'templateText', 'caption', 'subject'] as const;

/**
 * The start of a delivery's text, for the note to its session: the first text field of the
 * payload or of its `message`, whitespace collapsed, at most {@link MAX_EXCERPT_CHARS} characters.
 */
export function payloadExcerpt(payload: Readonly<Record<string, unknown>>): string | undefined {
  const nested = payload['message'];
  const places = [payload, typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>) : {}];
  for (const place of places) {
    for (const field of TEXT_FIELDS) {
      const value = place[field];
      if (typeof value !== 'string') continue;
      const text = value.replace(/\s+/g, ' ').trim();
      if (text === '') continue;
      return text.length <= MAX_EXCERPT_CHARS ? text : `${text.slice(0, MAX_EXCERPT_CHARS - 1)}…`;
    }
  }
  return undefined;
}

const reasonOf = (thrown: unknown): string => (thrown instanceof Error ? thrown.message : String(thrown));

/** Asks the sender; a permanent lookup failure (a missing scope, say) counts as `unknown`. */
async function lookUp(context: UnconfirmedContext): Promise<SentLookup> {
  const { sender, delivery, since, silentSince } = context;
  if (sender.findSent === undefined) return { kind: 'unknown', reason: 'the channel cannot ask its provider about an earlier send' };
  try {
    return await sender.findSent(delivery, { since, ...(silentSince === undefined ? {} : { silentSince }) });
  } catch (thrown) {
    if (thrown instanceof DeliveryError && thrown.permanent) return { kind: 'unknown', reason: `the provider could not be asked: ${thrown.message}` };
    if (context.lastAttempt) return { kind: 'unknown', reason: `asking the provider failed on the last attempt: ${reasonOf(thrown)}` };
    throw thrown;
  }
}

/** Gives up on the delivery (at most once): keeps a note for its session, then fails for good. */
async function drop(context: UnconfirmedContext, reason: string): Promise<never> {
  const { delivery, failures } = context;
  const { sessionId } = delivery.trace ?? {};
  if (sessionId !== undefined) {
    const excerpt = payloadExcerpt(delivery.payload);
    await failures.noteForSession({
      sessionId,
      idempotencyKey: delivery.idempotencyKey,
      channel: delivery.channel,
      at: new Date().toISOString(),
      ...(excerpt === undefined ? {} : { excerpt }),
    });
  }
  throw new UnconfirmedSendError(
    'delivery.failed',
    `an earlier attempt may have sent this delivery (intent recorded, no outcome) and ${reason}; not sending again, so it is never sent twice`,
  );
}

/** Sends under a new intent, unless another attempt took the entry over meanwhile. */
async function resend(context: UnconfirmedContext): Promise<Exclude<LedgerBegin, { kind: 'unconfirmed' }>> {
  const { ledger, delivery, jobId, since } = context;
  const begun = await ledger.resume(delivery.idempotencyKey, jobId, since);
  if (begun.kind !== 'unconfirmed') return begun;
  throw new DeliveryError('another attempt took this delivery over while the provider was asked; looking again');
}

/**
 * Decides what becomes of a delivery found `unconfirmed` in the ledger; see the file's comment.
 * Resolves `sent` (receipt recorded, do not send) or `proceed` (new intent recorded: send now).
 *
 * @throws UnconfirmedSendError when the delivery is given up (at most once).
 * @throws DeliveryError (retryable) when the provider must be asked again later.
 */
export async function resolveUnconfirmed(context: UnconfirmedContext): Promise<Exclude<LedgerBegin, { kind: 'unconfirmed' }>> {
  const lookup = await lookUp(context);
  switch (lookup.kind) {
    case 'sent': {
      const receipt = { ...lookup.receipt, details: { ...lookup.receipt.details, foundAtProvider: true } };
      await context.ledger.recordReceipt(context.delivery.idempotencyKey, receipt);
      return { kind: 'sent', receipt };
    }
    case 'absent':
      return resend(context);
    case 'pending':
      if (context.lastAttempt) return drop(context, `the provider could not tell in time (${lookup.reason})`);
      throw new DeliveryError(`the provider cannot tell yet whether an earlier attempt sent this: ${lookup.reason}`, { retryAfterMs: lookup.retryAfterMs });
    case 'unknown':
      if ((context.sender.unconfirmed ?? 'at-most-once') === 'at-least-once') return resend(context);
      return drop(context, lookup.reason);
  }
}
