import { describe, expect, it } from 'vitest';
import { isGsm7, smsSegmentCount, smsSegments } from './sms-segments.ts';

describe('smsSegments', () => {
  it('counts GSM-7 text in septets: 160 in one message, 153 per concatenated segment', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', segments: 0, units: 0 });
    expect(smsSegments('Hello @ £5 ¿ü?')).toEqual({ encoding: 'GSM-7', segments: 1, units: 14 });
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, units: 161 });
    expect(smsSegments('a'.repeat(306))).toEqual({ encoding: 'GSM-7', segments: 2, units: 306 });
    expect(smsSegments('a'.repeat(307))).toEqual({ encoding: 'GSM-7', segments: 3, units: 307 });
  });

  it('counts extension-table characters as two septets and never splits one across segments', () => {
    expect(smsSegments('€{}[]~|^\\')).toEqual({ encoding: 'GSM-7', segments: 1, units: 18 });
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(smsSegments('€'.repeat(81))).toEqual({ encoding: 'GSM-7', segments: 2, units: 162 });
    // 152 septets then a two-septet character: it cannot straddle, so it opens the second segment.
    expect(smsSegments(`${'a'.repeat(152)}€${'a'.repeat(10)}`).segments).toBe(2);
    expect(smsSegments(`${'a'.repeat(152)}€${'a'.repeat(152)}`)).toEqual({ encoding: 'GSM-7', segments: 3, units: 306 });
  });

  it('falls back to UCS-2 for anything outside GSM-7: 70 units, then 67 per segment', () => {
    expect(smsSegments('Café ’ok’')).toEqual({ encoding: 'UCS-2', segments: 1, units: 9 });
    expect(smsSegments('ç'.repeat(70))).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    expect(smsSegments('ç'.repeat(71))).toEqual({ encoding: 'UCS-2', segments: 2, units: 71 });
    expect(smsSegments('ç'.repeat(134))).toEqual({ encoding: 'UCS-2', segments: 2, units: 134 });
    expect(smsSegments('ç'.repeat(135))).toEqual({ encoding: 'UCS-2', segments: 3, units: 135 });
  });

  it('counts emoji as surrogate pairs and never splits a pair across segments', () => {
    expect(smsSegments('Hi 👋')).toEqual({ encoding: 'UCS-2', segments: 1, units: 5 });
    expect(smsSegments('👋'.repeat(35))).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    // 67-unit segments hold 33 emoji (66 units): the 34th cannot be split, so 36 emoji take 2 segments.
    expect(smsSegments('👋'.repeat(36))).toEqual({ encoding: 'UCS-2', segments: 2, units: 72 });
    expect(smsSegments('👋'.repeat(67))).toEqual({ encoding: 'UCS-2', segments: 3, units: 134 });
    expect(smsSegments(`${'a'.repeat(66)}👋${'a'.repeat(10)}`)).toEqual({ encoding: 'UCS-2', segments: 2, units: 78 });
  });

  it('knows the GSM-7 tables', () => {
    expect(isGsm7('ΔΦΓΛΩΠΨΣΘΞ ÆæßÉ ÄÖÑÜ§ äöñüà €\f')).toBe(true);
    expect(isGsm7('á')).toBe(false);
    expect(isGsm7('`')).toBe(false);
    expect(smsSegmentCount('x'.repeat(200))).toBe(2);
  });
});
