import { describe, expect, it } from 'vitest';
import { deliveryLogEntry } from './delivery-log-entry.ts';
import type { OutboundDelivery } from './outbound-types.ts';

const delivery: OutboundDelivery = {
  channel: 'slack',
  destination: { channel: 'slack', address: 'C123' },
  idempotencyKey: 'turn-7/part-1/slack',
  payload: { text: 'not logged' },
  trace: { sessionId: 'session-1', turnId: 'turn-7' },
};

describe('deliveryLogEntry', () => {
  it('logs a send with its provider id under the trace turn, without the payload', () => {
    const entry = deliveryLogEntry({ delivery, attempt: 2, outcome: 'sent', receipt: { providerMessageId: '1712.0001' } });
    expect(entry).toEqual({
      type: 'delivery',
      turnId: 'turn-7',
      data: { outcome: 'sent', attempt: 2, channel: 'slack', address: 'C123', idempotencyKey: 'turn-7/part-1/slack', providerMessageId: '1712.0001' },
    });
  });

  it('logs a retry with its error and next time, and leaves out a missing turn', () => {
    const entry = deliveryLogEntry({
      delivery: { ...delivery, trace: { sessionId: 'session-1' } },
      attempt: 1,
      outcome: 'retry',
      error: { code: 'delivery.rate_limited', message: 'ratelimited', retryAfterMs: 1000, status: 429 },
      nextAttemptAt: Date.parse('2030-01-01T00:00:01.000Z'),
    });
    expect(entry).not.toHaveProperty('turnId');
    expect(entry.data).toMatchObject({
      outcome: 'retry',
      error: { code: 'delivery.rate_limited', retryAfterMs: 1000, status: 429 },
      nextAttemptAt: '2030-01-01T00:00:01.000Z',
    });
  });
});
