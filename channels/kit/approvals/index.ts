/**
 * The channel kit's shared approvals: requests in plain words, decisions typed as text. Named
 * exports only.
 */
export { approvalRequestText, DEFAULT_SHORT_MAX_CHARS, type RequestTextOptions } from './request-text.ts';
export {
  describeApprovalRequest,
  replyInstruction,
  DEFAULT_MAX_VALUE_CHARS,
  type ApprovalDescription,
  type DescribeOptions,
  type ToolSentence,
  type ToolSentences,
} from './describe-request.ts';
export type { ArgumentLine } from './argument-lines.ts';
export { bookFlightSentence } from './book-flight-sentence.ts';
export { parseApprovalReply, looksLikeShortCode, DECISION_VERBS, COURTESIES, type ApprovalReply, type ReplyNoneReason } from './parse-reply.ts';
export { firstVisibleLine } from './visible-line.ts';
export {
  createChannelDecisions,
  type ChannelDecisions,
  type ChannelDecisionsConfig,
  type ChannelReply,
  type ChannelReplyResult,
  type ChannelRefusal,
} from './channel-decisions.ts';
