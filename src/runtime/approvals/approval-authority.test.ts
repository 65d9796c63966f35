import { describe, expect, it } from 'vitest';
import { describeIdentity, mayDecide } from './approval-authority.ts';

describe('who asked and who decides', () => {
  it('names a peer as a peer, a person by their id, anyone else by channel and address', () => {
    expect(describeIdentity({ channel: 'a2a', address: 'peer:flights', agent: true })).toBe('peer flights');
    expect(describeIdentity({ channel: 'email', address: 'ada@example.com', personId: 'ada' })).toBe('ada');
    expect(describeIdentity({ channel: 'sms', address: '+15550100' })).toBe('sms +15550100');
  });

  it('a requester decides only where the record allows it', () => {
    const peer = { channel: 'a2a', address: 'peer:flights', agent: true };
    const record = { approvers: [{ channel: 'email', address: 'fin@example.com' }], requester: peer, allowRequester: false };
    expect(mayDecide(record, peer)).toBe(false);
    expect(mayDecide(record, { channel: 'email', address: 'fin@example.com' })).toBe(true);
  });
});
