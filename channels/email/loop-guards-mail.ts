/**
 * The mail the loop guards check, the shape of one guard, and what the guards share for reading
 * header fields and quoting them in a reason.
 */
import type { HeaderField } from './loop-guards-fields.ts';

/** What `automatedMailReason` looks at. */
export interface LoopCheckedMail {
  /** Every header field, top first (see `headerFieldsFromLines`). */
  readonly headers: readonly HeaderField[];
  /** The bare `From` address (`grace@example.com`), or `undefined` when the message has none. */
  readonly from: string | undefined;
  /**
   * The envelope sender (SMTP `MAIL FROM`) when known; `''` or `<>` for the null sender. Default:
   * read from the `Return-Path` header fields the delivering server added.
   */
  readonly returnPath?: string | undefined;
  /** The bot's own addresses: mail from them, or with an `X-Loop` naming them, is our own coming back. Default none. */
  readonly ownAddresses?: readonly string[] | undefined;
}

/** One guard: why the bot must not answer `mail`, in words for the log, or `undefined` when it has no objection. */
export type LoopRule = (mail: LoopCheckedMail) => string | undefined;

/** Longest header value (in characters) quoted in a reason. */
const MAX_QUOTED = 80;

/** The fields of `mail` named `name` (lower case), top first. */
export function fieldsNamed(mail: LoopCheckedMail, name: string): HeaderField[] {
  return mail.headers.filter((field) => field.name === name);
}

/** A header value fit for a log line: control characters turned into spaces, cut at 80 characters with `…`. */
export function quoted(value: string): string {
  const clean = value.replace(/\p{Cc}/gu, ' ');
  return clean.length > MAX_QUOTED ? `${clean.slice(0, MAX_QUOTED)}…` : clean;
}
