/**
 * Threading of the mail the renderer writes, from `destination.thread` (set by the inbound side:
 * `messageId`, `references`, `subject`): `In-Reply-To` is the answered mail, `References` its
 * chain plus it (at most {@link MAX_REFERENCES}, the root kept), the subject `Re: <its subject>`.
 * Without a thread the subject is the content's first heading, else its first line.
 */
import type { Destination } from '../../src/runtime/injection.ts';
import { truncate } from '../kit/approvals/format-value.ts';
import type { MailContent } from './render-content.ts';
import { messageIdsIn } from './message-ids.ts';
import { replySubject } from './subject.ts';

/** Most Message-IDs kept in `References`: the root and the newest others. */
export const MAX_REFERENCES = 20;

/** Longest subject made from content, in characters. */
const SUBJECT_MAX_CHARS = 78;

/** Threading facts of the answered mail. */
export interface Thread {
  /** Its Message-ID, with `<>`. */
  readonly messageId?: string | undefined;
  /** Its `References`, oldest first. */
  readonly references: readonly string[];
  /** Its subject, as the person's client wrote it. */
  readonly subject?: string | undefined;
}

/** The subject and threading headers of one mail. */
export interface MailHeaders {
  readonly subject: string;
  /** A fixed Message-ID (approval requests); none lets the sender derive one. */
  readonly messageId?: string;
  readonly inReplyTo?: string | undefined;
  /** Oldest first; repeats and excess are dropped by {@link cappedReferences}. */
  readonly references?: readonly string[];
}

/** The thread `destination` answers, or `undefined` when it names neither a Message-ID nor a subject. */
export function threadOf(destination: Destination): Thread | undefined {
  const thread = destination.thread;
  const messageId = messageIdsIn(thread?.['messageId'])[0];
  const subject = thread?.['subject'];
  if (messageId === undefined && subject === undefined) return undefined;
  return { messageId, references: messageIdsIn(thread?.['references']), subject };
}

/** The answered mail's chain: its `References`, then its own Message-ID. Empty without a thread. */
export function threadChain(thread: Thread | undefined): string[] {
  return [...(thread?.references ?? []), ...(thread?.messageId === undefined ? [] : [thread.messageId])];
}

/** `ids` without repeats (first kept), at most {@link MAX_REFERENCES}: the root and the newest. */
export function cappedReferences(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  return unique.length <= MAX_REFERENCES ? unique : [...unique.slice(0, 1), ...unique.slice(-(MAX_REFERENCES - 1))];
}

/** `messageId` with its `<>`, or `undefined` when it is not a Message-ID (a notice's `inReplyTo` may be another channel's id). */
export function bracketedMessageId(messageId: string | undefined): string | undefined {
  const bare = messageId?.trim().replace(/^<|>$/g, '');
  return bare === undefined || !/^[^\s<>@]+@[^\s<>@]+$/.test(bare) ? undefined : `<${bare}>`;
}

/** A subject from `content`: its title, else its first non-blank line, else `fallback`; one line, at most 78 characters. */
function freshSubject(content: MailContent, fallback: string): string {
  const first = content.title ?? content.text.split('\n').find((line) => line.trim() !== '') ?? fallback;
  return truncate(first.replace(/\s+/g, ' ').trim(), SUBJECT_MAX_CHARS);
}

/**
 * The headers of an answer or notice in `thread`: in reply to `inReplyTo` when given (a notice's
 * own parent), else to the thread's mail; `Re:` the thread's subject, else a subject made from
 * `content` (`fallbackSubject` when it has no text).
 */
export function replyHeaders(thread: Thread | undefined, content: MailContent, inReplyTo: string | undefined, fallbackSubject: string): MailHeaders {
  const parent = inReplyTo ?? thread?.messageId;
  const references = [...threadChain(thread), ...(parent === undefined ? [] : [parent])];
  const subject = thread?.subject === undefined ? freshSubject(content, fallbackSubject) : replySubject(thread.subject);
  return { subject, inReplyTo: parent, references };
}
