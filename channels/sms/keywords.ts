/**
 * The carrier keywords of SMS, matched on the whole message (case-insensitive, surrounding spaces
 * and punctuation ignored). They never reach an actor and never decide an approval.
 */

/** What a keyword asks for. */
export type Keyword = 'opt-out' | 'opt-in' | 'help';

const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
const OPT_IN = new Set(['START', 'UNSTOP', 'YES']);
const HELP = new Set(['HELP', 'INFO']);

/**
 * The keyword a message is, or `undefined` for an ordinary message. `YES` is an opt-in only for a
 * number that opted out (`optedOut`); otherwise it is an ordinary word for the actor.
 *
 * @example
 * smsKeyword(' stop ', false) // 'opt-out'
 * smsKeyword('Yes', false)    // undefined
 */
export function smsKeyword(text: string, optedOut: boolean): Keyword | undefined {
  const word = text.trim().replace(/^[\s.!,;:"'*-]+|[\s.!,;:"'*-]+$/g, '').toUpperCase();
  if (OPT_OUT.has(word)) return 'opt-out';
  if (HELP.has(word)) return 'help';
  if (OPT_IN.has(word) && (word !== 'YES' || optedOut)) return 'opt-in';
  return undefined;
}

/**
 * {@link smsKeyword} of an inbound message, asking `isOptedOut` only when the answer depends on it
 * (the message is `YES`): an ordinary message costs no opt-out lookup.
 */
export async function inboundKeyword(text: string, isOptedOut: () => Promise<boolean>): Promise<Keyword | undefined> {
  const keyword = smsKeyword(text, false);
  if (keyword !== undefined || smsKeyword(text, true) === undefined) return keyword;
  return smsKeyword(text, await isOptedOut());
}
