/**
 * Decisions that arrive as inbound messages: a button press or a reply to an approval mail
 * (`approval-response` injection; `data.answer` set instead when the channel already knows the
 * reply cannot decide, e.g. it names two approvals) or a reply such as `APPROVE K7QX3M` on a
 * channel whose replies can decide. An unverified sender's decision is refused and audited by the store. Both go through the same
 * atomic decide as the web card; the person gets an answer on the channel they wrote from, and the
 * message never reaches an actor. Runs in the inbound worker, so a decision is as durable as any
 * message: it was enqueued before the provider was answered.
 */
import { createChannelDecisions } from '../channels/kit/approvals/channel-decisions.ts';
import type { ApprovalStore, DecisionAttempt, DecisionOutcome } from '../src/runtime/approvals/approval-types.ts';
import { decisionAnswer } from '../channels/kit/approvals/decision-answers.ts';
import type { Injection } from '../src/runtime/injection.ts';
import type { WiredChannels } from './channel-wiring.ts';

/** Options of {@link createInboundApprovals}. */
export interface InboundApprovalsOptions {
  readonly channels: WiredChannels;
  readonly store: Pick<ApprovalStore, 'get' | 'findByShortCode' | 'pendingFor'>;
  readonly decide: (attempt: DecisionAttempt) => Promise<DecisionOutcome>;
  readonly clock?: () => Date;
}

/** Takes decisions out of the inbound stream. */
export interface InboundApprovals {
  /** Handles `injection` when it is a decision: decides, answers, resolves `true`. `false` otherwise. */
  handle(injection: Injection): Promise<boolean>;
}

function identityOf(injection: Injection): DecisionAttempt['by'] & { readonly verified: boolean } {
  const { sender } = injection;
  return {
    channel: injection.channel,
    address: sender.id,
    verified: sender.verified,
    ...(sender.personId === undefined ? {} : { personId: sender.personId }),
    ...(sender.basis === undefined ? {} : { basis: sender.basis }),
  };
}

function buttonAttempt(injection: Injection): DecisionAttempt | undefined {
  const approvalId = injection.data?.['approvalId'];
  const decision = injection.data?.['decision'];
  const argsHash = injection.data?.['argsHash'];
  if (typeof approvalId !== 'string' || (decision !== 'granted' && decision !== 'denied')) return undefined;
  return { approvalId, decision, by: identityOf(injection), ...(typeof argsHash === 'string' ? { argsHash } : {}) };
}

/** Creates the inbound decision step. */
export function createInboundApprovals(options: InboundApprovalsOptions): InboundApprovals {
  const clock = options.clock ?? (() => new Date());
  const decisions = createChannelDecisions({ store: options.store, decide: options.decide, clock });
  const answer = async (injection: Injection, text: string): Promise<void> => {
    await options.channels.send(injection.replyTo, { type: 'notice', id: `answer.${injection.id}`, text, inReplyTo: injection.id }, `answer:${injection.id}`);
  };
  return {
    async handle(injection) {
      if (injection.kind === 'approval-response') {
        const refused = injection.data?.['answer'];
        if (typeof refused === 'string') {
          await answer(injection, refused);
          return true;
        }
        const attempt = buttonAttempt(injection);
        if (attempt === undefined) return true;
        const outcome = await options.decide(attempt);
        // Some refusals (not an approver, unverified) carry no record: the answer still names the approval.
        const record = outcome.record ?? (await options.store.get(attempt.approvalId));
        await answer(injection, record === undefined ? 'No such approval, so nothing was decided.' : decisionAnswer(outcome, record, { now: clock(), timeZone: 'UTC' }));
        return true;
      }
      if (injection.kind !== 'message' || options.channels.adaptors.get(injection.channel)?.approvals.textReplies !== true) return false;
      const result = await decisions.fromReply({ sender: identityOf(injection), text: injection.text });
      if (!result.handled) return false;
      await answer(injection, result.answer);
      return true;
    },
  };
}
