/**
 * Decisions typed as text (`APPROVE K7QX3M`, `deny`), read strictly: only a line that is nothing
 * but a decision decides; everything else is an ordinary message for the actor.
 *
 * The grammar, applied to the first non-empty line the person wrote (see `firstVisibleLine`):
 *
 *     line     = verb [code] [courtesy]      (words separated by spaces and/or . , : ; ! - * _ # ( ) [ ])
 *     verb     = APPROVE | APPROVED | DENY | DENIED          (any case)
 *     code     = 6 letters/digits, no spaces inside
 *     courtesy = thanks | thank you | thx | ty | please | pls | cheers
 *
 * Emoji are ignored. A line with a question mark, with quotation marks or apostrophes, or with any
 * other word or symbol does not decide. `YES`, `NO`, `OK`, `STOP`, `CANCEL`, `REJECT` never decide
 * (carriers treat STOP/CANCEL as opt-out, and a bare yes is too easy to send by accident).
 */
import { SHORT_CODE_ALPHABET, SHORT_CODE_LENGTH } from '../../../src/runtime/approvals/short-code.ts';
import { firstVisibleLine } from './visible-line.ts';

/** Why a reply did not decide. */
export type ReplyNoneReason =
  /** No visible text: empty, only punctuation or emoji, or only quoted material. */
  | 'empty'
  /** The line holds quotation marks or apostrophes: quoted or reported words never decide. */
  | 'quoted'
  /** The line holds a question mark: `approve?` asks, it does not answer. */
  | 'question'
  /** The line does not start with a decision verb. */
  | 'no-verb'
  /** The verb is followed by words or symbols that are neither a code nor a courtesy. */
  | 'extra-words';

/** What a reply says about approvals. `code` is upper-case; absent for a bare verb. */
export type ApprovalReply =
  | { readonly kind: 'decision'; readonly decision: 'granted' | 'denied'; readonly code?: string }
  | { readonly kind: 'none'; readonly reason: ReplyNoneReason };

/** The decision verbs, lower-case, and what each decides. */
export const DECISION_VERBS: ReadonlyMap<string, 'granted' | 'denied'> = new Map([
  ['approve', 'granted'],
  ['approved', 'granted'],
  ['deny', 'denied'],
  ['denied', 'denied'],
]);

/** Courtesies allowed after the verb and code, lower-case words. */
export const COURTESIES: readonly string[] = ['thanks', 'thank you', 'thx', 'ty', 'please', 'pls', 'cheers'];

/** Quotation marks of any style, apostrophes and backticks. */
const QUOTE_MARKS = /["'`\u2018-\u201f\u00ab\u00bb\u2039\u203a\u300c-\u300f\u301d-\u301f]/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3/gu;
/** A word made only of short-code alphabet characters. */
const ALPHABET_ONLY = new RegExp(`^[${SHORT_CODE_ALPHABET}]+$`);
/** Characters allowed besides letters, digits, spaces and emoji. */
const OTHER_SYMBOL = /[^\p{L}\p{N}\s.,:;!*_#()[\]\-\u2013\u2014]/u;

/**
 * Whether `word` reads as a short code: {@link SHORT_CODE_LENGTH} ASCII letters or digits, and
 * either holding a digit or made only of letters of the short-code alphabet (so `approve flight`
 * is not read as code `FLIGHT`, while a mistyped `ABC123` still is, to be answered "no such code").
 */
export function looksLikeShortCode(word: string): boolean {
  if (word.length !== SHORT_CODE_LENGTH || !/^[A-Za-z0-9]+$/.test(word)) return false;
  const upper = word.toUpperCase();
  return /\d/.test(upper) || ALPHABET_ONLY.test(upper);
}

const none = (reason: ReplyNoneReason): ApprovalReply => ({ kind: 'none', reason });

/**
 * Reads a reply. Only the first non-empty line outside quoted material counts; later lines never
 * change the result.
 *
 * @example
 * parseApprovalReply('approve: k7qx3m.')  // { kind: 'decision', decision: 'granted', code: 'K7QX3M' }
 * parseApprovalReply('Deny')              // { kind: 'decision', decision: 'denied' }
 * parseApprovalReply('approve the hotel') // { kind: 'none', reason: 'extra-words' }
 */
export function parseApprovalReply(text: string): ApprovalReply {
  const visible = firstVisibleLine(text);
  if (visible === undefined) return none('empty');
  const line = visible.normalize('NFKC');
  if (QUOTE_MARKS.test(line)) return none('quoted');
  if (/[?\u00bf]/u.test(line)) return none('question');
  const plain = line.replace(EMOJI, ' ');
  const words = plain.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
  const [first, ...rest] = words;
  if (first === undefined) return none('empty');
  const decision = DECISION_VERBS.get(first.toLowerCase());
  if (decision === undefined) return none('no-verb');
  if (OTHER_SYMBOL.test(plain)) return none('extra-words');
  const [next, ...after] = rest;
  const hasCode = next !== undefined && looksLikeShortCode(next) && !COURTESIES.includes(next.toLowerCase());
  const trailing = (hasCode ? after : rest).join(' ').toLowerCase();
  if (trailing !== '' && !COURTESIES.includes(trailing)) return none('extra-words');
  return hasCode ? { kind: 'decision', decision, code: next.toUpperCase() } : { kind: 'decision', decision };
}
