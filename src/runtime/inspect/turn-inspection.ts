/**
 * What the turn runner records for the inspector beside its log: the cost of each model call, the
 * whole calls when capture is on, and the suspensions and resumptions of the conversation index.
 */
import type { ModelUsage } from '../model/model-types.ts';
import type { CaptureStore } from './capture-store.ts';
import type { ConversationMarks } from './conversation-index.ts';

/** The turn runner's `inspect` dependency. */
export interface TurnInspection {
  /** Estimated cost of one model call, in USD; `undefined` for a model without a price (see `model-prices.ts`). */
  readonly costUsd: (model: string, usage: ModelUsage) => number | undefined;
  /** Where whole model calls are kept; set only while the `inspect.capture` setting is on. */
  readonly capture?: Pick<CaptureStore, 'save'>;
  /** The conversation index's record of suspended and resumed turns. Default: not recorded. */
  readonly conversations?: Pick<ConversationMarks, 'markSuspended' | 'markResumed'>;
  /** Removes secrets from text the conversation index keeps (a `Redactor`'s `text`). Default: kept as it is. */
  readonly redactText?: (text: string) => string;
}
