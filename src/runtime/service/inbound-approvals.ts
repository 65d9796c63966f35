/**
 * Decisions that arrive as inbound messages: a button press (`approval-response` injection) or a
 * reply such as `APPROVE K7QX3M` on a channel whose replies can decide. Both go through the same
 * atomic decide as the web card; the person gets an answer on the channel they wrote from, and the
 * message never reaches an actor. Runs in the inbound worker, so a decision is as durable as any
 * message: it was enqueued before the provider was answered.
 */
import { createChannelDecisions } from '../../../channels/kit/approvals/channel-decisions.ts';
import type { ApprovalStore, DecisionAttempt, DecisionOutcome } from '../approvals/approval-types.ts';
import { decisionAnswer } from '../../../channels/kit/approvals/decision-answers.ts';
import type { Injection } from '../injection.ts';
import type { WiredChannels } from './channel-wiring.ts';

/** Options of {@link createInboundApprovals}. */
export interface InboundApprovalsOptions {
  readonly channels: WiredChannels;
  readonly store: Pick<ApprovalStore, 'findByShortCode' | 'pendingFor'>;
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
  return { channel: injection.channel, address: sender.id, verified: sender.verified, ...(sender.personId === undefined ? {} : { personId: sender.personId }) };
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
        const attempt = buttonAttempt(injection);
        if (attempt === undefined) return true;
        if (!injection.sender.verified) {
          await answer(injection, 'This channel could not verify who you are, so nothing was decided.');
          return true;
        }
        const outcome = await options.decide(attempt);
        const { record } = outcome;
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
