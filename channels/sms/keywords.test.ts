import { describe, expect, it } from 'vitest';
import { inboundKeyword, smsKeyword } from './keywords.ts';

describe('SMS carrier keywords', () => {
  it.each(['STOP', 'stop', ' Stop. ', 'STOPALL', 'unsubscribe', 'CANCEL', 'end', 'QUIT', 'revoke', 'OPTOUT'])('%j opts out', (text) => {
    expect(smsKeyword(text, false)).toBe('opt-out');
  });

  it.each(['HELP', 'help!', 'Info'])('%j asks for help', (text) => {
    expect(smsKeyword(text, false)).toBe('help');
  });

  it('START and UNSTOP opt in; YES only for a number that opted out', () => {
    expect(smsKeyword('START', false)).toBe('opt-in');
    expect(smsKeyword('unstop', true)).toBe('opt-in');
    expect(smsKeyword('yes', true)).toBe('opt-in');
    expect(smsKeyword('yes', false)).toBeUndefined();
  });

  it('only the whole message is a keyword', () => {
    expect(smsKeyword('stop the booking please', false)).toBeUndefined();
    expect(smsKeyword('APPROVE K7QX3M', false)).toBeUndefined();
    expect(smsKeyword('help me find a flight', false)).toBeUndefined();
  });

  it('asks whether the number opted out only for YES, the one word that depends on it', async () => {
    const asked: string[] = [];
    const lookup = (optedOut: boolean) => (text: string) => () => { asked.push(text); return Promise.resolve(optedOut); };
    expect(await inboundKeyword('what flights are there?', lookup(true)('what flights are there?'))).toBeUndefined();
    expect(await inboundKeyword('STOP', lookup(false)('STOP'))).toBe('opt-out');
    expect(await inboundKeyword('START', lookup(false)('START'))).toBe('opt-in');
    expect(await inboundKeyword('help', lookup(false)('help'))).toBe('help');
    expect(asked).toEqual([]);
    expect(await inboundKeyword('Yes!', lookup(true)('Yes!'))).toBe('opt-in');
    expect(await inboundKeyword('yes', lookup(false)('yes'))).toBeUndefined();
    expect(asked).toEqual(['Yes!', 'yes']);
  });
});
