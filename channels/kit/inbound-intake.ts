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
 * For a sender the policy lets in by itself (an open channel, a known person, an `allow:` entry),
 * the accept's own script makes that decision: it stores nothing for a blocked sender or one with
 * messages held, who are then asked about as any other. Such a message costs one round trip less.
 *
 * Both paths drop a repeated injection id at this step. A repeat still asks for its session's turn,
 * so a first attempt that stored the message but failed before the turn was asked for (the caller
 * saw an error and redelivered) cannot strand it.
 *
 * A message may come with a condition (`AcceptCondition`: the web chat's sign-in session must
 * still exist). The accept checks it in its own script; a path whose write is not that script
 * (a decision, a sender the gate is asked about) checks it first. Either way nothing is stored
 * once the condition has lapsed, and the answer says so.
 */
import { parseApprovalReply } from './approvals/parse-reply.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { QuickAdmission, SenderGate } from '../../src/runtime/senders/sender-gate.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import type { AcceptCondition, SessionStore } from '../../src/runtime/session/session-store.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';

/** What {@link InboundIntake.enqueue} did. */
export interface IntakeResult {
  /** `true` when the injection id was seen before, so nothing new was stored. */
  readonly duplicate: boolean;
  /** `true` when the enqueue's condition had lapsed (its key was gone), so nothing was stored. */
  readonly lapsed?: true;
}

/** The result of an enqueue whose condition had lapsed. */
const LAPSED: IntakeResult = { duplicate: false, lapsed: true };

/** Options of {@link createInboundIntake}. */
export interface InboundIntakeOptions {
  /**
   * The session mailboxes (`acceptUnless` when the gate can hand its check to the accept;
   * `acceptWhile` and `renew` for enqueues with a condition).
   */
  readonly sessions: Pick<SessionStore, 'accept'> & Partial<Pick<SessionStore, 'acceptUnless' | 'acceptWhile' | 'renew'>>;
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
  readonly senders?: Pick<SenderGate, 'admit'> & Partial<Pick<SenderGate, 'quick'>>;
}

/** The intake; see {@link createInboundIntake}. */
export interface InboundIntake {
  /**
   * Durably stores `injection` (answer the channel only after this resolves). Rejects when Redis
   * cannot take it; the caller answers with an error so that the channel redelivers. With
   * `condition`, stores nothing once it has lapsed (`lapsed: true`).
   */
  enqueue(injection: Injection, condition?: AcceptCondition): Promise<IntakeResult>;
}

/** Whether `injection` is a decision rather than a message for an actor. */
export function isDecision(injection: Injection, textRepliesDecide: (channel: string) => boolean): boolean {
  if (injection.kind === 'approval-response') return true;
  if (injection.kind !== 'message' || !textRepliesDecide(injection.channel)) return false;
  return parseApprovalReply(injection.text).kind === 'decision';
}

type MailboxOptions = Pick<InboundIntakeOptions, 'sessions' | 'scheduleTurn' | 'startTurn'>;

/** The mailboxes, with the conditional accept an enqueue with a condition needs. */
function conditional(sessions: MailboxOptions['sessions']): Pick<SessionStore, 'acceptWhile' | 'renew'> {
  if (sessions.acceptWhile === undefined || sessions.renew === undefined) throw new SwitchboardError('internal', 'These session mailboxes cannot check an accept condition.');
  return sessions as Pick<SessionStore, 'acceptWhile' | 'renew'>;
}

/** Whether `condition` (if any) still holds, its expiry renewed: for a write that cannot check it itself. */
async function stillHolds(sessions: MailboxOptions['sessions'], condition: AcceptCondition | undefined): Promise<boolean> {
  return condition === undefined || conditional(sessions).renew(condition);
}

/**
 * Puts `injection` in its session's mailbox and asks for a turn; `duplicate` when seen before.
 * With `condition`, only while it holds (checked in the accept's script).
 */
export async function acceptIntoMailbox(options: MailboxOptions, injection: Injection, condition?: AcceptCondition): Promise<IntakeResult> {
  const sessionId = sessionIdOf(injection.tenantId, injection.channel, injection.conversationKey);
  if (condition === undefined) {
    const fresh = await withTurn(options, sessionId, injection.id, options.sessions.accept(sessionId, injection));
    return { duplicate: !fresh };
  }
  const answer = await withTurn(options, sessionId, injection.id, conditional(options.sessions).acceptWhile(sessionId, injection, condition));
  return answer === 'lapsed' ? LAPSED : { duplicate: answer === 'duplicate' };
}

/**
 * Asks for the session's turn beside `accepted` (an accept on its way) and resolves to what the
 * accept answered. A repeat, or a guarded accept that stored nothing, asks for the turn too: the
 * turn never waits on what the accept answers, and finds nothing new when there is nothing.
 */
async function withTurn<T>(options: MailboxOptions, sessionId: string, key: string, accepted: Promise<T>): Promise<T> {
  if (options.startTurn === undefined) {
    const answer = await accepted;
    await options.scheduleTurn(sessionId, key);
    return answer;
  }
  const [answer] = await Promise.all([accepted, options.startTurn(sessionId, key, accepted)]);
  return answer;
}

/**
 * Accepts the message of a sender the policy lets in by itself, the accept checking the sender's
 * block and held messages (and `condition`) in its own script; `undefined` when it stored nothing
 * for them (or the mailboxes have no such accept).
 */
async function acceptGuarded(
  options: MailboxOptions,
  injection: Injection,
  quick: Extract<QuickAdmission, { way: 'guarded' }>,
  condition: AcceptCondition | undefined,
): Promise<IntakeResult | undefined> {
  const { sessions } = options;
  if (sessions.acceptUnless === undefined) return undefined;
  const sessionId = sessionIdOf(injection.tenantId, injection.channel, injection.conversationKey);
  const accepting = condition === undefined ? sessions.acceptUnless(sessionId, injection, quick.guard) : conditional(sessions).acceptWhile(sessionId, injection, condition, quick.guard);
  const answer = await withTurn(options, sessionId, injection.id, accepting);
  if (answer === 'lapsed') return LAPSED;
  if (answer === 'guarded') return undefined;
  await quick.allowed();
  return { duplicate: answer === 'duplicate' };
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
    async enqueue(injection, condition) {
      if (isDecision(injection, options.textRepliesDecide)) {
        if (!(await stillHolds(options.sessions, condition))) return LAPSED;
        return await options.decisions.enqueue(injection);
      }
      const quick = options.senders?.quick?.(injection);
      if (quick?.way === 'guarded') {
        // Blocked, or with messages held, the sender is then asked about as any other.
        const accepted = await acceptGuarded(options, injection, quick, condition);
        if (accepted !== undefined) return accepted;
      }
      if (options.senders !== undefined && quick?.way !== 'free') {
        // A sender who may not write yet costs no turn: the gate holds, refuses or drops the message.
        if (!(await stillHolds(options.sessions, condition))) return LAPSED;
        const admission = await options.senders.admit(injection);
        if (!admission.admitted) return { duplicate: admission.duplicate };
      }
      return await acceptIntoMailbox(options, injection, condition);
    },
  };
}
