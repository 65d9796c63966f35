import { describe, expect, it } from 'vitest';
import { cronProblem, timeZoneProblem } from './cron-pattern.ts';
import { parseRecipient } from './parse-recipient.ts';

describe('cronProblem', () => {
  it.each(['0 9 * * 1-5', '*/1 * * * * *', '0 30 8 * * MON-FRI', ' 15 6 1 JAN * ', '0 0 29 2 *'])('accepts %j', (pattern) => {
    expect(cronProblem(pattern, 'Europe/London')).toBeUndefined();
  });

  it.each([
    ['@daily', '"@daily" has 1 field; a cron pattern has 5 (minute hour day-of-month month day-of-week) or 6 (second minute hour day-of-month month day-of-week)'],
    ['0 0 9 * * * 2030', '"0 0 9 * * * 2030" has 7 fields; a cron pattern has 5 (minute hour day-of-month month day-of-week) or 6 (second minute hour day-of-month month day-of-week)'],
    ['0 25 * * *', '"0 25 * * *" is not a valid cron pattern: Constraint error, got value 25 expected range 0-23'],
    ['*/0 * * * *', '"*/0 * * * *" is not a valid cron pattern: Constraint error, cannot repeat at every 0 time.'],
    ['0 9 31 2 *', '"0 9 31 2 *" is not a valid cron pattern: Invalid explicit day of month definition'],
  ])('refuses %j', (pattern, problem) => {
    expect(cronProblem(pattern, 'UTC')).toBe(problem);
  });
});

describe('timeZoneProblem', () => {
  it('accepts IANA zones and refuses others', () => {
    expect(timeZoneProblem('UTC')).toBeUndefined();
    expect(timeZoneProblem('America/New_York')).toBeUndefined();
    expect(timeZoneProblem('Nowhere/City')).toBe('"Nowhere/City" is not an IANA time zone such as Europe/London or UTC');
  });
});

describe('parseRecipient', () => {
  it('reads person ids and channel addresses', () => {
    expect(parseRecipient('grace')).toEqual({ ok: true, recipient: { personId: 'grace' } });
    expect(parseRecipient('whatsapp:+15550100')).toEqual({ ok: true, recipient: { channel: 'whatsapp', address: '+15550100' } });
    expect(parseRecipient('slack:C0123:thread')).toEqual({ ok: true, recipient: { channel: 'slack', address: 'C0123:thread' } });
    expect(parseRecipient('email:not-an-email')).toEqual({ ok: false, problem: '"not-an-email" is not an email address' });
    expect(parseRecipient('slack:')).toEqual({ ok: false, problem: '"" is not a Slack channel or user id without spaces' });
  });
});
