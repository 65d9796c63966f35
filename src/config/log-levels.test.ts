import { levels } from 'pino';
import { describe, expect, it } from 'vitest';
import { isLogLevel, LOG_LEVELS } from './log-levels.ts';

describe('LOG_LEVELS', () => {
  it("matches pino's levels plus silent", () => {
    expect([...LOG_LEVELS].sort()).toEqual([...Object.keys(levels.values), 'silent'].sort());
  });

  it('recognises exact lower-case names only', () => {
    expect(isLogLevel('warn')).toBe(true);
    expect(isLogLevel('WARN')).toBe(false);
    expect(isLogLevel('verbose')).toBe(false);
  });
});
