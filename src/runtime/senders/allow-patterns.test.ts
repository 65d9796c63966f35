import { describe, expect, it } from 'vitest';
import type { Sender } from '../injection.ts';
import { allowEntryProblem, compileAllowList } from './allow-patterns.ts';
import { compileSenderPolicy, defaultSenderMode, describeSenderPolicy, senderPolicies } from './sender-policy.ts';

describe('allow entries', () => {
  it.each([
    ['sms', '+447700900123'],
    ['sms', '+44*'],
    ['sms', 'whatsapp:+1415*'],
    ['whatsapp', '+15550100'],
    ['email', 'ada@example.com'],
    ['email', '*@example.com'],
    ['email', '*@*.example.com'],
    ['slack', 'T0123:U0456'],
    ['slack', 'T0123:*'],
    ['web', 'b_0123abcd'],
  ] as const)('%s accepts %s', (channel, entry) => {
    expect(allowEntryProblem(channel, entry)).toBeUndefined();
  });

  it.each([
    ['sms', '*', 'senders: open'],
    ['sms', '+44 7700*', 'E.164'],
    ['sms', '44*', 'E.164'],
    ['sms', '+*', 'E.164'],
    ['whatsapp', 'whatsapp:+44*', 'E.164'],
    ['email', 'example.com', '*@example.com'],
    ['email', 'a*@example.com', 'whole domain'],
    ['slack', 'U0456', 'TEAM:USER'],
    ['slack', 't0123:*', 'TEAM:USER'],
    ['web', 'b_*', 'exact browser identities'],
  ] as const)('%s refuses %s, saying what would do', (channel, entry, hint) => {
    expect(allowEntryProblem(channel, entry)).toContain(hint);
  });

  it('matches exact entries and patterns, email without regard to case', () => {
    const sms = compileAllowList('sms', ['+447700900123', '+1415*']);
    expect(['+447700900123', '+14155550100', '+447700900124', '+1416000'].map(sms)).toEqual([true, true, false, false]);
    const email = compileAllowList('email', ['*@example.com', 'grace@partner.org', '*@*.corp.example']);
    expect(['Ada@Example.com', 'grace@partner.org', 'bob@partner.org', 'x@eu.corp.example', 'x@corp.example', 'x@example.com.evil'].map(email)).toEqual([true, true, false, true, false, false]);
    const slack = compileAllowList('slack', ['T0123:*', 'T0999:U0001']);
    expect(['T0123:U0456', 'T0999:U0001', 'T0999:U0002', 'T01234:U0001'].map(slack)).toEqual([true, true, false, false]);
  });
});

describe('sender policies', () => {
  const stranger: Sender = { id: '+447700900999', verified: true };
  const person: Sender = { id: '+15550100', verified: true, personId: 'ada' };

  it('default to open on web and Slack, pairing on SMS, email and WhatsApp, allowlist on WhatsApp web', () => {
    const policies = senderPolicies(undefined);
    expect(Object.fromEntries(Object.values(policies).map((policy) => [policy.channel, policy.mode]))).toEqual({ web: 'open', email: 'pairing', sms: 'pairing', slack: 'open', whatsapp: 'pairing' });
    expect(defaultSenderMode('whatsapp', { whatsappMode: 'web' })).toBe('allowlist');
    expect(defaultSenderMode('whatsapp', { whatsappMode: 'cloud' })).toBe('pairing');
    expect(policies.sms.defaulted).toBe(true);
    expect(policies.sms.refusal).toBe('daily');
    // A linked personal number never sends its owner's contacts an automatic refusal.
    expect(senderPolicies(undefined, { whatsappMode: 'web' }).whatsapp).toMatchObject({ mode: 'allowlist', refusal: 'never' });
  });

  it('takes what switchboard.yaml sets over the default, and lists known people and allowed entries', () => {
    const settings = Object.fromEntries(['web', 'email', 'sms', 'slack', 'whatsapp'].map((channel) => [channel, { allow: [] }])) as Parameters<typeof senderPolicies>[0] & object;
    const policies = senderPolicies({ ...settings, sms: { mode: 'allowlist', allow: ['+44*'], refusal: 'never' } });
    const sms = compileSenderPolicy(policies.sms);
    expect(sms).toMatchObject({ mode: 'allowlist', defaulted: false, refusal: 'never' });
    expect([stranger, person, { id: '+15550199', verified: true }].map((sender) => sms.listed(sender))).toEqual([true, true, false]);
    expect(describeSenderPolicy(policies.sms)).toBe('allowlist: known people, approved senders, 1 allow entry; others get no answer');
    expect(describeSenderPolicy(policies.web)).toBe("open (the channel's default): anyone may write");
  });
});
