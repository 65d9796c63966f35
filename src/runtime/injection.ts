/**
 * The injection: one inbound event, normalised by its channel, on its way to a session's mailbox.
 * Channels build injections; queues carry them; the turn runner gives them to actors.
 */

/** Where replies for a conversation go: a channel and the channel's own address for it. */
export interface Destination {
  /** Channel id: `web`, `email`, `sms`, `slack`, `whatsapp`. */
  readonly channel: string;
  /** The channel's address: a web conversation id, an email address, an E.164 number, a Slack channel. */
  readonly address: string;
  /** Channel-specific threading facts (e.g. the email Message-ID to reply to, a Slack thread_ts). */
  readonly thread?: Readonly<Record<string, string>>;
}

/** Who sent an injection, as the channel could establish it. */
export interface Sender {
  /** The channel's identity of the sender (an email address, a phone number, a Slack user id, a browser id). */
  readonly id: string;
  readonly displayName?: string;
  /** A known person from the app's configuration, when the sender was matched to one. */
  readonly personId?: string;
  /** Whether the channel verified the identity (DKIM/DMARC, Slack signature); `false` for weak identities. */
  readonly verified: boolean;
  /** What the verification rested on, in words, for the audit trail (e.g. `DKIM pass d=example.com`). */
  readonly basis?: string;
  /**
   * `true` when the sender is another agent (a peer): it may ask for what needs an approval, but it
   * is never an approver, not even of its own request. Default: a person.
   */
  readonly agent?: boolean;
}

/**
 * What an injection carries. `user-action` is a control the person pressed on a surface the service
 * showed them (an A2UI Button of an `a2ui-surface` part): its `data` is a {@link UserActionData}. It
 * goes to the session's mailbox like a message, never to the approval decisions.
 */
export type InjectionKind = 'message' | 'approval-response' | 'peer-result' | 'timeout' | 'user-action';

/** The `data` of a `user-action` injection: the A2UI action event the page sent back. */
export interface UserActionData {
  /** The surface the control is on, as delivered in its `createSurface.surfaceId`. */
  readonly surfaceId: string;
  /** The component that was pressed, when the page named it. */
  readonly sourceComponentId?: string;
  /** The action's event name (`action.event.name` of the Button), 1 to 100 characters. */
  readonly name: string;
  /** The action's event context, a JSON object (`{}` when the Button had none). */
  readonly context: Readonly<Record<string, unknown>>;
}

/**
 * Where an injection's text came from:
 * - `typed`: what the sender wrote in a chat (web, Slack, SMS, WhatsApp), or a custom channel's message;
 * - `email-body`: the visible text of a mail (its quoted history and signatures stripped);
 * - `email-quoted`: the quoted history of a mail;
 * - `attachment`: what a file someone sent says;
 * - `webhook`: a payload posted to one of the service's webhooks;
 * - `peer`: a message from another agent;
 * - `ui-action`: a control the person pressed (a surface's Button, an approval button);
 * - `schedule`: a schedule's prompt, written by the operator in `switchboard.yaml`.
 */
export type ContentSource = 'typed' | 'email-body' | 'email-quoted' | 'attachment' | 'webhook' | 'peer' | 'ui-action' | 'schedule';

/**
 * Where an injection's text came from and how far it is trusted. `trusted: true` means the text
 * is the request of the sender the turn answers, as the channel established them (a person's own
 * words, never the operator's instructions; a schedule's prompt is the operator's own); `false`
 * means content from outside, which the model reads as data, never as instructions (see
 * `src/runtime/content-trust.ts` for the rules, and docs/approvals.md).
 */
export interface ContentProvenance {
  readonly source: ContentSource;
  readonly trusted: boolean;
}

/** One normalised inbound event. */
export interface Injection {
  /**
   * Stable id derived from the channel's own message id (`web:<clientMessageId>`,
   * `email:<uidValidity>-<uid>`): a redelivery has the same id and is dropped at enqueue.
   */
  readonly id: string;
  readonly kind: InjectionKind;
  readonly channel: string;
  readonly tenantId: string;
  /** The channel's key for the conversation (web conversation id, email thread root, phone number). */
  readonly conversationKey: string;
  readonly sender: Sender;
  /**
   * The text the person wrote (quoted history and signatures already stripped); for an event, a
   * short line for logs (e.g. `[action] book`).
   */
  readonly text: string;
  /**
   * Where `text` came from and whether it is trusted; set by the channel's normalise. Unset (a
   * channel that does not say): `typed` (`ui-action` for a `user-action`, `peer` for an agent),
   * trusted only when the sender is verified and not an agent (see `contentOf` in
   * `src/runtime/content-trust.ts`).
   */
  readonly content?: ContentProvenance;
  /** Structured payload, e.g. an approval decision. */
  readonly data?: Readonly<Record<string, unknown>>;
  /** Where the answer goes. */
  readonly replyTo: Destination;
  /**
   * The actor that must answer when this injection starts a turn, whatever the channel's route
   * says (a peer configured with its own `actor`). Default: the channel's route.
   */
  readonly actor?: string;
  /** ISO 8601 time the channel received it. */
  readonly receivedAt: string;
}
