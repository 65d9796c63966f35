import { describe, expect, it } from 'vitest';
import { deliveryIdempotencyKey } from './outbound-types.ts';

describe('deliveryIdempotencyKey', () => {
  it('is stable for one (turn, part, destination)', () => {
    const destination = { channel: 'sms', address: '+15550100' };
    expect(deliveryIdempotencyKey('turn-7', 2, destination)).toBe(deliveryIdempotencyKey('turn-7', '2', destination));
  });

  it('tells apart turns, parts and destinations, whatever characters they contain', () => {
    const keys = [
      deliveryIdempotencyKey('t', 0, { channel: 'web', address: 'a' }),
      deliveryIdempotencyKey('t', 1, { channel: 'web', address: 'a' }),
      deliveryIdempotencyKey('u', 0, { channel: 'web', address: 'a' }),
      deliveryIdempotencyKey('t', 0, { channel: 'sms', address: 'a' }),
      deliveryIdempotencyKey('t', 0, { channel: 'web', address: 'b' }),
      deliveryIdempotencyKey('t:0', '', { channel: 'web', address: 'a' }),
      deliveryIdempotencyKey('t', ':0', { channel: 'web', address: 'a' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
