/**
 * Subjects: the `Re:` a reply keeps (whatever language the person's client added its prefix in)
 * and the `[approval:<id>]` token of approval request mail.
 */

/** Reply and forward prefixes of common clients, in several languages (`Re`, `AW`, `SV`, `Antw`, ...). */
const PREFIX = /^\s*(?:re|aw|sv|vs|antw|odp|r|rif|res|ref|réf|fw|fwd|wg|tr|enc|rv|vl|doorst|πχ|ΑΠ|ΣΧΕΤ|答复|回复|转发)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*/iu;

/** `subject` without the reply and forward prefixes stacked at its start (`Re: AW: Fwd: x` → `x`). */
export function stripReplyPrefixes(subject: string): string {
  let rest = subject.trim();
  for (let match = PREFIX.exec(rest); match !== null; match = PREFIX.exec(rest)) rest = rest.slice(match[0].length);
  return rest.trim();
}

/**
 * The subject of the bot's reply to a mail with `subject`: one `Re:` before the original words, so
 * Gmail, Outlook and Apple Mail keep it in the same conversation.
 *
 * @example
 * replySubject('AW: Re: Corfu in May') // 'Re: Corfu in May'
 * replySubject('')                      // 'Re: your message'
 */
export function replySubject(subject: string | undefined): string {
  const words = stripReplyPrefixes(subject ?? '').replace(/\s+/g, ' ');
  return `Re: ${words === '' ? 'your message' : words}`;
}

/** The token approval request mail carries in its subject. */
export function approvalToken(approvalId: string): string {
  return `[approval:${approvalId}]`;
}

/** The distinct approval ids named by `[approval:<id>]` tokens in `subject`, in order. */
export function approvalIdsInSubject(subject: string | undefined): string[] {
  const ids = [...(subject ?? '').matchAll(/\[approval:([A-Za-z0-9_-]{22})\]/g)].map((match) => match[1] ?? '');
  return [...new Set(ids)];
}
