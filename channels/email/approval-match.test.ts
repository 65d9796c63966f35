import { describe, expect, it } from 'vitest';
import { matchApproval } from './approval-match.ts';
import { createMessageIds } from './message-ids.ts';
import { approvalToken } from './subject.ts';

const ids = createMessageIds({ secret: 's'.repeat(32), domain: 'example.com' });
const a = 'AAAAAAAAAAAAAAAAAAAAAA';
const b = 'BBBBBBBBBBBBBBBBBBBBBB';
const mailA = ids.forApproval(a, 'grace@example.com');
const mailB = ids.forApproval(b, 'grace@example.com');

describe('matching a reply to an approval', () => {
  it('uses our Message-ID in In-Reply-To first', () => {
    expect(matchApproval({ inReplyTo: mailA, references: `<x@gmail.com> ${mailA}`, subject: `Re: ${approvalToken(a)} Approve?` }, ids)).toEqual({ kind: 'approval', approvalId: a, by: 'message-id' });
  });

  it('finds it in References when the client dropped In-Reply-To', () => {
    expect(matchApproval({ references: `<x@gmail.com> ${mailA} <y@gmail.com>`, subject: 'Re: approve' }, ids)).toMatchObject({ approvalId: a, by: 'message-id' });
  });

  it('falls back to the subject token when no header names one', () => {
    expect(matchApproval({ inReplyTo: '<x@outlook.com>', subject: `AW: ${approvalToken(b)} Approve: book` }, ids)).toEqual({ kind: 'approval', approvalId: b, by: 'subject' });
  });

  it('refuses when the subject names another approval than the headers', () => {
    expect(matchApproval({ inReplyTo: mailA, subject: `Re: ${approvalToken(b)}` }, ids)).toEqual({ kind: 'conflict', approvalIds: [a, b] });
  });

  it('refuses a reply whose References name two approvals and In-Reply-To neither', () => {
    expect(matchApproval({ references: `${mailA} ${mailB}` }, ids)).toMatchObject({ kind: 'conflict' });
    expect(matchApproval({ inReplyTo: mailB, references: `${mailA} ${mailB}` }, ids)).toMatchObject({ kind: 'approval', approvalId: b });
  });

  it('ignores forged ids of ours and plain mail', () => {
    const forged = mailA.replace(/\.[a-z0-9]{16}@/, '.0000000000000000@');
    expect(matchApproval({ inReplyTo: forged, subject: 'Re: trip' }, ids)).toEqual({ kind: 'none' });
    expect(matchApproval({ subject: 'Corfu?' }, ids)).toEqual({ kind: 'none' });
  });
});
