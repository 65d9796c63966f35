/**
 * What the Slack route hands to `normalise`: a message event that may start or continue a
 * conversation (already checked: signed, not the bot's own, not an edit), or a button press on an
 * approval card.
 */

/** A person's message in a DM, a mention, or a reply in a thread the bot is in. */
export interface SlackMessageEvent {
  readonly type: 'slack-message';
  /** The Events API `event_id`: the same on every retry. */
  readonly eventId: string;
  readonly teamId: string;
  readonly channel: string;
  readonly user: string;
  /** The message's own `ts`. */
  readonly ts: string;
  /** The thread it is in; absent for a message that starts one. */
  readonly threadTs?: string;
  /** The text, the bot's mention removed. */
  readonly text: string;
  /** Lines about files shared with the message. */
  readonly notes: readonly string[];
  /** ISO 8601. */
  readonly receivedAt: string;
  /** `socket` when it came over Socket Mode (authenticated by the app token); absent for a signed HTTP request. */
  readonly via?: 'socket';
}

/** A click on Approve or Deny. */
export interface SlackApprovalClick {
  readonly type: 'slack-approval';
  /** Stable per click: the action's `action_ts`. */
  readonly actionTs: string;
  readonly teamId: string;
  readonly user: string;
  readonly channel: string;
  /** The card's message `ts`, and its thread. */
  readonly messageTs: string;
  readonly threadTs?: string;
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  readonly argsHash?: string;
  readonly receivedAt: string;
  readonly via?: 'socket';
}

/** A file as a message event lists it. */
export interface SlackSharedFile {
  readonly name: string;
  /** As Slack gives it; `application/octet-stream` when it gives none. */
  readonly mimeType: string;
  /** As Slack gives it, in bytes. */
  readonly sizeBytes?: number;
  /** `url_private_download` (else `url_private`): needs the bot token. */
  readonly url?: string;
}

/** Either kind of Slack event. */
export type SlackEvent = SlackMessageEvent | SlackApprovalClick;
