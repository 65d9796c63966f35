import { describe, expect, it } from 'vitest';
import { looksLikeShortCode, parseApprovalReply, type ApprovalReply } from './parse-reply.ts';

const granted = (code?: string): ApprovalReply =>
  code === undefined ? { kind: 'decision', decision: 'granted' } : { kind: 'decision', decision: 'granted', code };
const denied = (code?: string): ApprovalReply =>
  code === undefined ? { kind: 'decision', decision: 'denied' } : { kind: 'decision', decision: 'denied', code };
const none = (reason: Extract<ApprovalReply, { kind: 'none' }>['reason']): ApprovalReply => ({ kind: 'none', reason });

const cases: readonly (readonly [string, ApprovalReply])[] = [
  // verbs, case, codes
  ['APPROVE K7QX3M', granted('K7QX3M')],
  ['DENY K7QX3M', denied('K7QX3M')],
  ['approve k7qx3m', granted('K7QX3M')],
  ['Approve K7qx3M', granted('K7QX3M')],
  ['APPROVED K7QX3M', granted('K7QX3M')],
  ['Denied k7qx3m', denied('K7QX3M')],
  ['APPROVE ABC123', granted('ABC123')],
  ['ＡＰＰＲＯＶＥ Ｋ７ＱＸ３Ｍ', granted('K7QX3M')],
  // spaces and punctuation
  ['   APPROVE     K7QX3M   ', granted('K7QX3M')],
  ['approve: abc123.', granted('ABC123')],
  ['Deny - ABC123!', denied('ABC123')],
  ['Deny — ABC123!!!', denied('ABC123')],
  ['*APPROVE* #K7QX3M', granted('K7QX3M')],
  ['approve (K7QX3M)', granted('K7QX3M')],
  ['APPROVE,K7QX3M', granted('K7QX3M')],
  ['approve K7QX3M 👍', granted('K7QX3M')],
  ['\u200bAPPROVE\u00a0K7QX3M', granted('K7QX3M')],
  // bare verbs and courtesies
  ['APPROVE', granted()],
  ['deny.', denied()],
  ['Approved!', granted()],
  ['approve thanks', granted()],
  ['APPROVE K7QX3M thank you!', granted('K7QX3M')],
  ['deny K7QX3M, please.', denied('K7QX3M')],
  // codes are one word of six
  ['APPROVE abc 123', none('extra-words')],
  ['APPROVE K7QX', none('extra-words')],
  ['APPROVE K7QX3MM', none('extra-words')],
  ['approve 4821', none('extra-words')],
  ['APPROVE K7QX3M K7QX3M', none('extra-words')],
  // never deciding words
  ['YES', none('no-verb')],
  ['no', none('no-verb')],
  ['OK', none('no-verb')],
  ['STOP', none('no-verb')],
  ['CANCEL', none('no-verb')],
  ['REJECT K7QX3M', none('no-verb')],
  ['y', none('no-verb')],
  ['', none('empty')],
  ['  \n \n', none('empty')],
  ['!!! 👍', none('empty')],
  // decision words inside sentences
  ['approve the hotel instead?', none('question')],
  ['approve?', none('question')],
  ['approve flight', none('extra-words')],
  ['approve for now', none('extra-words')],
  ['Deny. Wrong dates', none('extra-words')],
  ['I approve K7QX3M', none('no-verb')],
  ['please approve K7QX3M', none('no-verb')],
  ['do not approve', none('no-verb')],
  ['approve not', none('extra-words')],
  ['approve & deny', none('extra-words')],
  ['~APPROVE K7QX3M~', none('extra-words')],
  ['approve K7QX3M and book a hotel', none('extra-words')],
  // quotation marks
  ['"APPROVE K7QX3M"', none('quoted')],
  ['\u201cAPPROVE K7QX3M\u201d', none('quoted')],
  ['\u00abDENY K7QX3M\u00bb', none('quoted')],
  ["'APPROVE K7QX3M'", none('quoted')],
  ['APPROVE "K7QX3M"', none('quoted')],
  ['`APPROVE K7QX3M`', none('quoted')],
  ['He said "APPROVE K7QX3M"', none('quoted')],
  // quoted lines and quote headers
  ['> APPROVE K7QX3M', none('empty')],
  ['> APPROVE K7QX3M\nwhat does this cost', none('no-verb')],
  ['>> DENY K7QX3M\n> APPROVE K7QX3M', none('empty')],
  ['> Approval K7QX3M: concierge wants to book a flight.\nAPPROVE K7QX3M', granted('K7QX3M')],
  ['On Mon, 1 Jan 2030 at 10:00, Switchboard <bot@example.com> wrote:\n> APPROVE K7QX3M', none('empty')],
  ['On Mon, 1 Jan 2030 at 10:00, Switchboard <bot@example.com> wrote:\nAPPROVE K7QX3M', none('empty')],
  ['\n\nOn Mon, 1 Jan 2030, Bot wrote:\nReply APPROVE K7QX3M or DENY K7QX3M', none('empty')],
  ['-----Original Message-----\nAPPROVE K7QX3M', none('empty')],
  ['DENY K7QX3M\n\nOn Mon, 1 Jan 2030, Bot wrote:\n> Reply APPROVE K7QX3M', denied('K7QX3M')],
  // multi-line: only the first non-empty line counts
  ['\n\n  approve K7QX3M  \r\nthanks so much, see you tomorrow', granted('K7QX3M')],
  ['DENY K7QX3M\nAPPROVE K7QX3M', denied('K7QX3M')],
  ['Thanks for asking\nAPPROVE K7QX3M', none('no-verb')],
  ['approve\r\n\r\n-- \r\nAda', granted()],
  ['Reply APPROVE K7QX3M or DENY K7QX3M', none('no-verb')],
];

describe('parseApprovalReply', () => {
  it('has a table of at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%j', (text, expected) => {
    expect(parseApprovalReply(text)).toEqual(expected);
  });
});

describe('looksLikeShortCode', () => {
  it.each([
    ['K7QX3M', true],
    ['ABC123', true],
    ['change', true],
    ['flight', false],
    ['thanks', false],
    ['K7QX3', false],
    ['K7QX3É', false],
  ] as const)('%s → %s', (word, expected) => {
    expect(looksLikeShortCode(word)).toBe(expected);
  });
});
