/**
 * One outgoing mail as the email renderer writes it and the sender reads it back from the outbound
 * queue: a plain JSON object (it is stored in the queue and the delivery ledger).
 */

/** An attachment: bytes in the artifact store (`artifactId`), or only a link (`url`). */
export type EmailAttachment = {
  /** The artifact store's id; the sender loads the bytes by it. */
  readonly artifactId?: string;
  /** A safe `http(s):` address of the file, when known. */
  readonly url?: string;
  /** File name shown to the reader. */
  readonly name: string;
  readonly mimeType?: string;
  /** Size in bytes, when known. */
  readonly sizeBytes?: number;
};

/** What a mail is, which sets its `Auto-Submitted` header and how it threads. */
export type EmailKind = 'answer' | 'approval-request' | 'approval-update' | 'notice';

/**
 * One rendered mail. The HTML and the text part always carry the same content. A type alias (not
 * an interface), so that it is a `ChannelMessage` (`Readonly<Record<string, unknown>>`).
 */
export type EmailPayload = {
  readonly kind: EmailKind;
  /** The recipient's bare address. */
  readonly to: string;
  readonly subject: string;
  /** The `text/plain` alternative: no markup, no Markdown. */
  readonly text: string;
  /** The `text/html` alternative: a whole document with inline styles only. */
  readonly html: string;
  /**
   * A fixed Message-ID with its `<>` (approval requests, so replies name the approval); otherwise
   * the sender derives one from the delivery's idempotency key.
   */
  readonly messageId?: string;
  /** `In-Reply-To`: the Message-ID (with `<>`) of the mail this answers. */
  readonly inReplyTo?: string;
  /** `References`: the thread's Message-IDs (with `<>`), oldest first, ending with `inReplyTo`. */
  readonly references?: readonly string[];
  /** `Auto-Submitted` (RFC 3834): `auto-replied` for answers to a person's mail, `auto-generated` otherwise. */
  readonly autoSubmitted: 'auto-replied' | 'auto-generated';
  readonly attachments: readonly EmailAttachment[];
};

const KINDS: ReadonlySet<string> = new Set(['answer', 'approval-request', 'approval-update', 'notice']);

const isString = (value: unknown): value is string => typeof value === 'string';

function isAttachment(value: unknown): value is EmailAttachment {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  const optional = (key: string, check: (inner: unknown) => boolean): boolean => item[key] === undefined || check(item[key]);
  return (
    isString(item['name']) &&
    optional('artifactId', isString) &&
    optional('url', isString) &&
    optional('mimeType', isString) &&
    optional('sizeBytes', (inner) => typeof inner === 'number')
  );
}

/**
 * `payload` as an {@link EmailPayload} when it has that shape (as read back from a queue), else
 * `undefined`. Checks the types of every field, not the addresses or ids themselves.
 */
export function readEmailPayload(payload: Readonly<Record<string, unknown>>): EmailPayload | undefined {
  const { kind, to, subject, text, html, messageId, inReplyTo, references, autoSubmitted, attachments } = payload;
  const valid =
    isString(kind) && KINDS.has(kind) &&
    isString(to) && to !== '' && isString(subject) && isString(text) && isString(html) &&
    (messageId === undefined || isString(messageId)) &&
    (inReplyTo === undefined || isString(inReplyTo)) &&
    (references === undefined || (Array.isArray(references) && references.every(isString))) &&
    (autoSubmitted === 'auto-replied' || autoSubmitted === 'auto-generated') &&
    Array.isArray(attachments) && attachments.every(isAttachment);
  return valid ? (payload as unknown as EmailPayload) : undefined;
}
