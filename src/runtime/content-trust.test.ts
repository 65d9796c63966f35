import { describe, expect, it } from 'vitest';
import { actionContent, contentOf, mailBodyContent, outsideContent, typedContent } from './content-trust.ts';
import type { Injection } from './injection.ts';

const verified = { id: 'web:b_1', verified: true };
const unverified = { id: 'x@example.net', verified: false };

function injection(sender: Injection['sender'], content?: Injection['content'], kind: Injection['kind'] = 'message'): Pick<Injection, 'kind' | 'sender' | 'content'> {
  return { kind, sender, ...(content === undefined ? {} : { content }) };
}

describe('the channel helpers', () => {
  it('trust typed words and pressed controls of a verified sender only', () => {
    expect(typedContent(verified)).toEqual({ source: 'typed', trusted: true });
    expect(typedContent(unverified)).toEqual({ source: 'typed', trusted: false });
    expect(actionContent(verified)).toEqual({ source: 'ui-action', trusted: true });
    expect(typedContent({ ...verified, agent: true }).trusted).toBe(false);
  });

  it('trust a mail body only from a verified, known person', () => {
    expect(mailBodyContent({ verified: true, personId: 'ada' })).toEqual({ source: 'email-body', trusted: true });
    expect(mailBodyContent({ verified: true })).toEqual({ source: 'email-body', trusted: false });
    expect(mailBodyContent({ verified: false, personId: 'ada' })).toEqual({ source: 'email-body', trusted: false });
  });
});

describe('contentOf', () => {
  it('keeps what the channel said when the rules allow it', () => {
    const said = { source: 'email-body', trusted: true } as const;
    expect(contentOf(injection({ ...verified, personId: 'ada' }, said))).toBe(said);
    expect(contentOf(injection(verified, outsideContent('webhook')))).toEqual({ source: 'webhook', trusted: false });
  });

  it.each(['email-quoted', 'attachment', 'webhook', 'peer'] as const)('never trusts %s, whatever the channel says', (source) => {
    expect(contentOf(injection({ ...verified, personId: 'ada' }, { source, trusted: true }))).toEqual({ source, trusted: false });
  });

  it('never trusts an unverified sender or an agent, whatever the channel says', () => {
    expect(contentOf(injection(unverified, { source: 'typed', trusted: true })).trusted).toBe(false);
    expect(contentOf(injection({ ...verified, agent: true }, { source: 'typed', trusted: true })).trusted).toBe(false);
  });

  it('takes an injection without content for typed words, a pressed control, or a peer message', () => {
    expect(contentOf(injection(verified))).toEqual({ source: 'typed', trusted: true });
    expect(contentOf(injection(unverified))).toEqual({ source: 'typed', trusted: false });
    expect(contentOf(injection(verified, undefined, 'user-action'))).toEqual({ source: 'ui-action', trusted: true });
    expect(contentOf(injection({ ...verified, agent: true }))).toEqual({ source: 'peer', trusted: false });
  });
});
