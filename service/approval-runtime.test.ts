import { describe, expect, it } from 'vitest';
import { decisionLogLine } from './approval-runtime.ts';

const attempt = { approvalId: 'ap-1', decision: 'granted' as const, by: { channel: 'email', address: 'mallory@example.com', verified: false } };

describe('how a decision attempt is logged', () => {
  it('a refused attempt is a warning with its reason, not a granted decision', () => {
    const line = decisionLogLine(attempt, { ok: false, refusal: 'unverified', message: 'The sender could not be verified.' });
    expect(line.level).toBe('warn');
    expect(line.message).toBe('approval decision refused');
    expect(line.fields).toMatchObject({ asked: 'granted', refusal: 'unverified', reason: 'The sender could not be verified.' });
    expect(line.fields).not.toHaveProperty('decision');
  });

  it('a decision taken is info, with the decision', () => {
    const line = decisionLogLine(attempt, { ok: true, record: {} as never });
    expect(line).toMatchObject({ level: 'info', message: 'approval decided', fields: { decision: 'granted' } });
  });
});
