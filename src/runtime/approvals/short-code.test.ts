import { describe, expect, it } from 'vitest';
import { isApprovalId, newApprovalId } from './approval-id.ts';
import { newShortCode, normalizeShortCode, SHORT_CODE_ALPHABET } from './short-code.ts';

describe('short codes', () => {
  it('are 6 characters of the alphabet, which has no look-alikes', () => {
    for (const char of '0O1IL5S2Z8B') expect(SHORT_CODE_ALPHABET).not.toContain(char);
    for (let i = 0; i < 200; i += 1) expect(newShortCode()).toMatch(new RegExp(`^[${SHORT_CODE_ALPHABET}]{6}$`));
  });

  it('match case-insensitively and refuse malformed input', () => {
    expect(normalizeShortCode(' k7qx3m ')).toBe('K7QX3M');
    expect(normalizeShortCode('K7QX3')).toBeUndefined();
    expect(normalizeShortCode('K7QX3O')).toBeUndefined();
  });
});

describe('approval ids', () => {
  it('are 22 base64url characters and differ', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newApprovalId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isApprovalId(id)).toBe(true);
    expect(isApprovalId('a:b')).toBe(false);
  });
});
