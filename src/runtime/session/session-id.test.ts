import { describe, expect, it } from 'vitest';
import { sessionIdOf } from './session-id.ts';

describe('sessionIdOf', () => {
  it('derives the id every process derives: sha256 of the three parts, 26 base-32 characters', () => {
    // Pinned: ids are keys in Redis, so a change here would orphan every stored session.
    expect(sessionIdOf('default', 'web', 'c-42')).toBe('ses_27d4a36u3kya3podzu3p3bcful');
  });

  it('gives the same id when asked again (remembered) and different ids for different parts', () => {
    const first = sessionIdOf('default', 'sms', '+15550100');
    expect(sessionIdOf('default', 'sms', '+15550100')).toBe(first);
    expect(sessionIdOf('other', 'sms', '+15550100')).not.toBe(first);
    expect(sessionIdOf('default', 'sms', '+15550101')).not.toBe(first);
    expect(sessionIdOf('t', 'a', 'b')).toMatch(/^ses_[a-z2-7]{26}$/);
  });
});
