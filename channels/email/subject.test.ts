import { describe, expect, it } from 'vitest';
import { approvalIdsInSubject, approvalToken, replySubject, stripReplyPrefixes } from './subject.ts';

describe('subjects', () => {
  it.each([
    ['Corfu in May', 'Re: Corfu in May'],
    ['Re: Corfu in May', 'Re: Corfu in May'],
    ['RE: re: Corfu in May', 'Re: Corfu in May'],
    ['AW: Corfu in May', 'Re: Corfu in May'],
    ['SV: VS: Corfu in May', 'Re: Corfu in May'],
    ['Antw: Fwd: Corfu in May', 'Re: Corfu in May'],
    ['Re[2]: Corfu in May', 'Re: Corfu in May'],
    ['回复: Corfu in May', 'Re: Corfu in May'],
    ['Réf : Corfu in May', 'Re: Corfu in May'],
    ['', 'Re: your message'],
  ])('%j is answered as %j', (original, expected) => {
    expect(replySubject(original)).toBe(expected);
  });

  it('keeps words that only look like prefixes', () => {
    expect(stripReplyPrefixes('Rework of the trip')).toBe('Rework of the trip');
    expect(stripReplyPrefixes('Award: best trip')).toBe('Award: best trip');
  });

  it('finds approval tokens, each once', () => {
    const id = 'AbCdEfGhIjKlMnOpQr-_12';
    expect(approvalToken(id)).toBe(`[approval:${id}]`);
    expect(approvalIdsInSubject(`Re: ${approvalToken(id)} Approve: book BA2043 ${approvalToken(id)}`)).toEqual([id]);
    expect(approvalIdsInSubject('Re: [approval:short] hi')).toEqual([]);
    expect(approvalIdsInSubject(undefined)).toEqual([]);
  });
});
