/**
 * From a text reply on any channel to a decision: parse it, find the approval it names, check the
 * sender could be verified, take the decision through the same atomic `decide` as the web card,
 * and word the answer. Framework-free: the store and `decide` are passed in.
 */
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { ApprovalRecord, ApprovalStore, ChannelIdentity, DecisionAttempt, DecisionOutcome } from '../../../src/runtime/approvals/approval-types.ts';
import { ambiguousAnswer, decisionAnswer, nothingPendingAnswer, unknownCodeAnswer, UNVERIFIED_ANSWER } from './decision-answers.ts';
import type { ToolSentences } from './describe-request.ts';
import { parseApprovalReply, type ReplyNoneReason } from './parse-reply.ts';
import { checkTimeZone } from './time-phrases.ts';

/** Options of {@link createChannelDecisions}. */
export interface ChannelDecisionsConfig {
  /** Where pending approvals are looked up (the channel context's `approvals`). */
  readonly store: Pick<ApprovalStore, 'findByShortCode' | 'pendingFor'>;
  /** The one atomic decision, the same the web card uses (the channel context's `decide`). */
  readonly decide: (attempt: DecisionAttempt) => Promise<DecisionOutcome>;
  /** Time for clock times in answers. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** IANA time zone of clock times in answers. Default `UTC`. */
  readonly timeZone?: string;
  /** Per-tool sentences for the confirmation (`Approved K7QX3M: book flight ...`). Default none. */
  readonly sentences?: ToolSentences;
}

/** One text reply from a channel. */
export interface ChannelReply {
  /** Who sent it, as the channel established it; `verified: false` when the channel could not vouch for the sender (an unsigned mail). */
  readonly sender: ChannelIdentity & { readonly verified: boolean };
  /** The message text; only its first visible line can decide. */
  readonly text: string;
  /** The channel it came in on, recorded as `by.channel`. Default `sender.channel`; must equal it. */
  readonly channel?: string;
  /** The sender's address on that channel, recorded as `by.address`. Default `sender.address`; must equal it. */
  readonly address?: string;
}

/** Why a decision reply was answered without calling `decide`. */
export type ChannelRefusal = 'unverified' | 'unknown_code' | 'nothing_pending' | 'ambiguous';

/** What to do with a reply. */
export type ChannelReplyResult =
  /** Not a decision: hand the text to the actor as an ordinary message. */
  | { readonly handled: false; readonly reason: ReplyNoneReason }
  /** A decision reply: send `answer` back; the text does not go to the actor. */
  | {
      readonly handled: true;
      readonly answer: string;
      readonly decision: 'granted' | 'denied';
      /** The approval the reply was matched to, when it was. */
      readonly approval?: ApprovalRecord;
      /** The store's outcome, when `decide` was called. */
      readonly outcome?: DecisionOutcome;
      /** Set when `decide` was not called, and why. */
      readonly refused?: ChannelRefusal;
    };

/** Decisions typed on text channels. */
export interface ChannelDecisions {
  /** Reads one reply; rejects only when the store or `decide` fails. */
  fromReply(reply: ChannelReply): Promise<ChannelReplyResult>;
}

function identityOf(reply: ChannelReply): ChannelIdentity {
  const { sender } = reply;
  if ((reply.channel ?? sender.channel) !== sender.channel || (reply.address ?? sender.address) !== sender.address) {
    throw new SwitchboardError('channel.invalid', 'A reply\'s channel and address must be the sender\'s own', {
      details: { channel: reply.channel, address: reply.address, senderChannel: sender.channel, senderAddress: sender.address },
    });
  }
  return { channel: sender.channel, address: sender.address, ...(sender.personId === undefined ? {} : { personId: sender.personId }) };
}

/**
 * Creates the text-reply decision flow. A bare verb decides only when the sender has exactly one
 * pending approval; an unverified sender is refused before anything is looked up. Throws
 * `SwitchboardError('config.invalid')` for an unknown time zone; `fromReply` throws
 * `SwitchboardError('channel.invalid')` when `channel`/`address` differ from the sender's.
 *
 * @example
 * const decisions = createChannelDecisions({ store: context.approvals, decide: context.decide, clock: context.clock });
 * const result = await decisions.fromReply({ sender: { channel: 'email', address: from, verified: dmarcPass }, text });
 * if (result.handled) await sendAnswer(result.answer); else await context.enqueue(injection);
 */
export function createChannelDecisions(config: ChannelDecisionsConfig): ChannelDecisions {
  const { store, decide } = config;
  const clock = config.clock ?? (() => new Date());
  const timeZone = checkTimeZone(config.timeZone ?? 'UTC');

  return {
    async fromReply(reply) {
      const parsed = parseApprovalReply(reply.text);
      if (parsed.kind === 'none') return { handled: false, reason: parsed.reason };
      const { decision } = parsed;
      const identity = identityOf(reply);
      if (!reply.sender.verified) return { handled: true, answer: UNVERIFIED_ANSWER, decision, refused: 'unverified' };

      let approval: ApprovalRecord | undefined;
      if (parsed.code !== undefined) {
        approval = await store.findByShortCode(identity, parsed.code);
        if (approval === undefined) {
          const pending = await store.pendingFor(identity);
          return { handled: true, answer: unknownCodeAnswer(parsed.code, pending), decision, refused: 'unknown_code' };
        }
      } else {
        const pending = await store.pendingFor(identity);
        if (pending.length === 0) return { handled: true, answer: nothingPendingAnswer(), decision, refused: 'nothing_pending' };
        if (pending.length > 1) return { handled: true, answer: ambiguousAnswer(decision, pending), decision, refused: 'ambiguous' };
        approval = pending[0];
        if (approval === undefined) return { handled: true, answer: nothingPendingAnswer(), decision, refused: 'nothing_pending' };
      }

      const outcome = await decide({ approvalId: approval.approvalId, decision, by: { ...identity, verified: true } });
      const context = { now: clock(), timeZone, ...(config.sentences === undefined ? {} : { sentences: config.sentences }) };
      return { handled: true, answer: decisionAnswer(outcome, approval, context), decision, approval, outcome };
    },
  };
}
