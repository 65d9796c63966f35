/**
 * The loop guards that judge addresses: our own mail coming back (`X-Loop` or `From` naming one
 * of our addresses) and machine senders (`noreply@`, `mailer-daemon@`, `bounces@`).
 */
import { fieldsNamed, quoted, type LoopCheckedMail } from './loop-guards-mail.ts';

/** Local parts of machine senders, matched on the lower-cased local part without a `+tag`. */
const MACHINE_LOCAL_PARTS: readonly RegExp[] = [
  /(^|[._-])(no-?reply|no_reply|do-?not-?reply|do_not_reply)($|[._-])/,
  /^(mailer-daemon|postmaster)$/,
  /^bounces?($|[._-])/,
];

/** `X-Loop` naming one of {@link LoopCheckedMail.ownAddresses} (compared case-insensitively). */
export function ownLoop(mail: LoopCheckedMail): string | undefined {
  const own = ownAddresses(mail);
  const field = fieldsNamed(mail, 'x-loop').find((candidate) => addressesIn(candidate.value).some((address) => own.includes(address)));
  return field === undefined ? undefined : `X-Loop: ${quoted(field.value)} (our own address)`;
}

/**
 * No `From` address, a `From` that is our own address, or a machine sender: a local part of
 * `noreply`, `no-reply`, `do-not-reply`, `donotreply` (also inside, as in `notifications-noreply`),
 * `mailer-daemon`, `postmaster`, or one starting with `bounce`.
 */
export function machineSender(mail: LoopCheckedMail): string | undefined {
  const from = mail.from?.trim().toLowerCase() ?? '';
  if (from === '') return 'no From address';
  if (ownAddresses(mail).includes(from)) return `From is our own address ${quoted(from)}`;
  return MACHINE_LOCAL_PARTS.some((pattern) => pattern.test(localPart(from))) ? `sender ${quoted(from)} is a machine address` : undefined;
}

/** The local part of a lower-cased address, without surrounding quotes and without a `+tag`. */
function localPart(address: string): string {
  const at = address.lastIndexOf('@');
  return (at === -1 ? address : address.slice(0, at)).replace(/^"|"$/g, '').split('+', 1)[0] ?? '';
}

/** {@link LoopCheckedMail.ownAddresses} trimmed and lower-cased, blanks left out. */
function ownAddresses(mail: LoopCheckedMail): string[] {
  return (mail.ownAddresses ?? []).map((address) => address.trim().toLowerCase()).filter((address) => address !== '');
}

/** The addresses named in a header value, lower-cased (`Bot <bot@example.com>` → `bot@example.com`). */
function addressesIn(value: string): string[] {
  return value
    .toLowerCase()
    .split(/[\s<>,;:"()[\]]+/)
    .filter((token) => token.includes('@'));
}
