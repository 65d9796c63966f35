/**
 * Where every injection a channel receives goes before the channel answers its request or webhook.
 *
 * An ordinary message goes straight into its session's mailbox (one atomic script: remember the
 * injection id, append to the mailbox) and then asks the turn queue for a turn of that session.
 * There is no queue-wide lane: each conversation's order is the order of its mailbox, which is the
 * order its messages were accepted, and different conversations never wait for each other.
 *
 * A decision (a button press, a reply such as `APPROVE K7QX3M` on a channel whose replies can
 * decide) never reaches an actor: it goes to the inbound queue, whose worker decides it and answers
 * the person. Decisions have no order to keep with messages, so that queue needs no lane either.
 *
 * Before a message is stored, the sender policy (when given) decides whether its sender may write
 * at all; decisions are routed first, so an approver's `APPROVE K7QX3M` is never held back by it.
 *
 * Both paths drop a repeated injection id at this step. A repeat still asks for its session's turn,
 * so a first attempt that stored the message but failed before the turn was asked for (the caller
 * saw an error and redelivered) cannot strand it.
 */
import { parseApprovalReply } from './approvals/parse-reply.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { SenderGate } from '../../src/runtime/senders/sender-gate.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import type { SessionStore } from '../../src/runtime/session/session-store.ts';

/** What {@link InboundIntake.enqueue} did. */
export interface IntakeResult {
  /** `true` when the injection id was seen before, so nothing new was stored. */
  readonly duplicate: boolean;
}

/** Options of {@link createInboundIntake}. */
export interface InboundIntakeOptions {
  /** The session mailboxes. */
  readonly sessions: Pick<SessionStore, 'accept'>;
  /** Asks for a turn of a session; `key` names the reason (the injection id). */
  readonly scheduleTurn: (sessionId: string, key: string) => Promise<void>;
  /**
   * Asks for a turn while the message's accept is still on its way (`accepted`), saving a round
   * trip. It must not let the turn begin before `accepted` resolved, except through commands sent
   * after the accept on the same Redis connection (Redis runs a connection's commands in order):
   * the inline turns' lock claim. Default: the accept is awaited, then {@link scheduleTurn}.
   */
  readonly startTurn?: (sessionId: string, key: string, accepted: Promise<unknown>) => Promise<void>;
  /** The inbound queue, for decisions. */
  readonly decisions: { enqueue(injection: Injection): Promise<IntakeResult> };
  /** Whether text replies on `channel` can decide approvals (the channel's `approvals.textReplies`). */
  readonly textRepliesDecide: (channel: string) => boolean;
  /**
   * Who may write (`src/runtime/senders/sender-gate.ts`): asked about every message that is not a
   * decision, before it is stored. Default: everyone may.
   */
  readonly senders?: Pick<SenderGate, 'admit'>;
}

/** The intake; see {@link createInboundIntake}. */
export interface InboundIntake {
  /**
   * Durably stores `injection` (answer the channel only after this resolves). Rejects when Redis
   * cannot take it; the caller answers with an error so that the channel redelivers.
   */
  enqueue(injection: Injection): Promise<IntakeResult>;
}

/** Whether `injection` is a decision rather than a message for an actor. */
export function isDecision(injection: Injection, textRepliesDecide: (channel: string) => boolean): boolean {
  if (injection.kind === 'approval-response') return true;
  if (injection.kind !== 'message' || !textRepliesDecide(injection.channel)) return false;
  return parseApprovalReply(injection.text).kind === 'decision';
}

/** Puts `injection` in its session's mailbox and asks for a turn; `duplicate` when seen before. */
export async function acceptIntoMailbox(
  options: Pick<InboundIntakeOptions, 'sessions' | 'scheduleTurn' | 'startTurn'>,
  injection: Injection,
): Promise<IntakeResult> {
  const sessionId = sessionIdOf(injection.tenantId, injection.channel, injection.conversationKey);
  const accepted = options.sessions.accept(sessionId, injection);
  if (options.startTurn === undefined) {
    const fresh = await accepted;
    await options.scheduleTurn(sessionId, injection.id);
    return { duplicate: !fresh };
  }
  // A repeat asks for the turn too, so the turn never waits on what the accept answers.
  const [fresh] = await Promise.all([accepted, options.startTurn(sessionId, injection.id, accepted)]);
  return { duplicate: !fresh };
}

/**
 * Creates the intake.
 *
 * @example
 * const intake = createInboundIntake({ sessions, scheduleTurn: (id, key) => turns.schedule(id, key), decisions: inboundQueue, textRepliesDecide });
 * const { duplicate } = await intake.enqueue(injection); // then answer 202
 */
export function createInboundIntake(options: InboundIntakeOptions): InboundIntake {
  return {
    async enqueue(injection) {
      if (isDecision(injection, options.textRepliesDecide)) return options.decisions.enqueue(injection);
      if (options.senders !== undefined) {
        // A sender who may not write yet costs no turn: the gate holds, refuses or drops the message.
        const admission = await options.senders.admit(injection);
        if (!admission.admitted) return { duplicate: admission.duplicate };
      }
      return acceptIntoMailbox(options, injection);
    },
  };
}
