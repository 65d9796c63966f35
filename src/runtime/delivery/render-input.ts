import type { Part } from '../../protocol/parts/part.ts';
import type { ApprovalRecord } from '../approvals/approval-types.ts';

/**
 * What the service asks a channel to render. `part`, `turn` and `envelope` come from a turn (by
 * the part types' delivery rules for the channel's transport class); `approval-request` and
 * `approval-update` from the approvals runtime; `notice` is the service's own words (the answer to
 * an approval reply, a `notify` message, help text).
 */
export type RenderInput =
  | { readonly type: 'part'; readonly turnId: string; readonly partId: string; readonly turnState: string; readonly actor?: string; readonly part: Part }
  | {
      readonly type: 'turn';
      readonly turnId: string;
      readonly turnState: string;
      readonly actor?: string;
      /** `true` when the turn settled in `turnState` (its last event); absent for a state it goes on from. */
      readonly settled?: true;
      /**
       * On a channel whose live signals are paced (see `live-signals.ts`): whether a signal (a
       * status) the turn showed may still be showing, i.e. none of its messages followed it. A
       * channel whose provider clears a status when a message is posted need not clear it when
       * this is `false`. Absent on other channels.
       */
      readonly signalShowing?: boolean;
    }
  | {
      readonly type: 'envelope';
      readonly turnId: string;
      readonly turnState: string;
      /** The envelope's parts, already filtered by the delivery rules for a buffered transport. */
      readonly parts: readonly Part[];
      readonly envelope?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: 'approval-request';
      readonly record: ApprovalRecord;
      readonly partId: string;
      readonly part: Part;
      /**
       * Whether the recipient may decide: `false` for the turn's own conversation when its requester
       * may not (`allowRequester` off and not an approver), so it is told whose approval is awaited
       * instead of how to decide. Default `true` (an approver's destination).
       */
      readonly mayDecide?: boolean;
    }
  | { readonly type: 'approval-update'; readonly record: ApprovalRecord }
  | {
      readonly type: 'notice';
      /** Stable id of the notice (unique per destination), e.g. `approval-answer:<injection id>`. */
      readonly id: string;
      readonly text: string;
      /** The channel's id of the message this answers, when it threads replies. */
      readonly inReplyTo?: string;
    };
