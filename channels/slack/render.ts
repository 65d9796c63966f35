/**
 * The Slack channel's renderer, for a streaming transport: each output as it comes to the calls
 * the sender makes ({@link SlackPayload}).
 * - `ack`, `thinking`, `progress` parts set the assistant thread's status; the turn settling clears
 *   it unless a message was posted after it (Slack clears the status when the app posts).
 * - Other parts (`response`, `clarify`, `error`, `domain-data` through the kit's templates, any
 *   part type with text) are posted in the thread as section blocks of Slack mrkdwn.
 * - `artifact` parts are posted as a link line, or a line naming the file; files are not uploaded here.
 * - An approval request is one card with Approve / Deny buttons; its decision updates that card.
 * - A notice is posted in the thread, or shown to one person alone when the destination says so.
 *
 * The pieces: status (`render-status.ts`), messages (`render-messages.ts`), approval cards
 * (`render-approval.ts`, `render-approval-blocks.ts`), block builders (`render-blocks.ts`) and
 * destinations (`render-where.ts`).
 */
import type { RenderInput } from '../channel.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { checkTimeZone } from '../kit/approvals/time-phrases.ts';
import { approvalCard, approvalCardUpdate, type ApprovalCardContext } from './render-approval.ts';
import { noticeOf, postsOf } from './render-messages.ts';
import { partStatus, settledStatus, STATUS_PART_TYPES } from './render-status.ts';
import type { SlackPayload } from './slack-payload.ts';

/** Options of {@link createSlackRender}. */
export interface SlackRenderOptions {
  /** The time approval expiries are counted from. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /**
   * IANA time zone of the clock times a Slack client shows when it cannot show a date token in the
   * reader's own zone. Default `UTC`.
   */
  readonly timeZone?: string;
  /** Per-tool sentences of approval cards (`book flight BA2043 …`). Default none. */
  readonly sentences?: ToolSentences;
}

/** The renderer: one output for one destination to its Slack calls (none when nothing is to be shown). */
export type SlackRender = (input: RenderInput, destination: Destination) => SlackPayload[];

/**
 * Creates the renderer.
 *
 * @example
 * const render = createSlackRender({ clock: context.clock, sentences: { book_flight: bookFlightSentence } });
 * render({ type: 'part', turnId, partId, turnState: 'awaiting', part: ack }, replyTo);
 * // [{ op: 'status', channel: 'C123', threadTs: '1712345678.000100', status: 'is looking up flights…' }]
 * @throws SwitchboardError `config.invalid` for an unknown time zone.
 */
export function createSlackRender(options: SlackRenderOptions = {}): SlackRender {
  const context: ApprovalCardContext = { ...options, clock: options.clock ?? (() => new Date()), timeZone: checkTimeZone(options.timeZone ?? 'UTC') };
  return (input, destination) => {
    switch (input.type) {
      case 'part':
        return STATUS_PART_TYPES.has(input.part.metadata.partType) ? partStatus(input.part, destination) : postsOf([input.part], destination);
      case 'turn':
        // Slack clears the status itself when the app posts in the thread.
        return input.signalShowing === false ? [] : settledStatus(input.turnState, destination);
      case 'envelope':
        return postsOf(input.parts, destination);
      case 'approval-request':
        return [approvalCard(input.record, destination, context, input.mayDecide ?? true)];
      case 'approval-update':
        return approvalCardUpdate(input.record, destination, context);
      case 'notice':
        return noticeOf(input.text, destination);
    }
  };
}
