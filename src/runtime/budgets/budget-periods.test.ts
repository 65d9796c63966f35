import { describe, expect, it } from 'vitest';
import { durationText, periodWindow, resetText } from './budget-periods.ts';

describe('budget periods', () => {
  it('names the UTC day and month of a moment and when each ends', () => {
    const at = Date.parse('2028-02-29T23:59:59.999Z');
    expect(periodWindow('day', at)).toEqual({ id: '2028-02-29', startsAt: Date.parse('2028-02-29T00:00:00.000Z'), endsAt: Date.parse('2028-03-01T00:00:00.000Z') });
    expect(periodWindow('month', at)).toEqual({ id: '2028-02', startsAt: Date.parse('2028-02-01T00:00:00.000Z'), endsAt: Date.parse('2028-03-01T00:00:00.000Z') });
    const newYear = Date.parse('2027-12-31T12:00:00.000Z');
    expect(periodWindow('month', newYear)).toEqual({ id: '2027-12', startsAt: Date.parse('2027-12-01T00:00:00.000Z'), endsAt: Date.parse('2028-01-01T00:00:00.000Z') });
    expect(periodWindow('day', Date.parse('2028-01-01T00:00:00.000Z')).id).toBe('2028-01-01');
  });

  it('answers moments on either side of a boundary, in any order, with their own period', () => {
    const before = Date.parse('2030-06-30T23:59:59.999Z');
    const after = before + 1;
    for (const at of [before, after, before, after, after, before]) {
      expect(periodWindow('day', at).id).toBe(at === before ? '2030-06-30' : '2030-07-01');
      expect(periodWindow('month', at)).toMatchObject({ id: at === before ? '2030-06' : '2030-07', endsAt: Date.parse(at === before ? '2030-07-01T00:00:00.000Z' : '2030-08-01T00:00:00.000Z') });
    }
  });

  it('writes a wait rounded up to the minute, in days and hours from a day on', () => {
    expect(durationText(0)).toBe('1 min');
    expect(durationText(61_000)).toBe('2 min');
    expect(durationText(3 * 3_600_000)).toBe('3 h');
    expect(durationText(3 * 3_600_000 + 12 * 60_000)).toBe('3 h 12 min');
    expect(durationText(28 * 3_600_000)).toBe('1 day 4 h');
    expect(durationText(12 * 86_400_000)).toBe('12 days');
  });

  it('says when a day or a month resets', () => {
    expect(resetText('day', Date.parse('2028-03-01T00:00:00.000Z'))).toBe('at 00:00 UTC');
    expect(resetText('month', Date.parse('2028-04-01T00:00:00.000Z'))).toBe('on 1 April at 00:00 UTC');
  });
});
