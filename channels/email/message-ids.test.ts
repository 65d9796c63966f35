import { describe, expect, it } from 'vitest';
import { createMessageIds, messageIdsIn } from './message-ids.ts';

const ids = createMessageIds({ secret: 's'.repeat(32), domain: 'Example.com' });
const approvalId = 'AbCdEfGhIjKlMnOpQr-_12';

describe('our Message-IDs', () => {
  it('reads back an approval request id, and only with its own tag and domain', () => {
    const id = ids.forApproval(approvalId, 'Grace@Example.com');
    expect(id).toMatch(/^<sb\.a\.AbCdEfGhIjKlMnOpQr-_12\.[a-z0-9]{8}\.[a-z0-9]{16}@example\.com>$/);
    expect(ids.read(id)).toEqual({ kind: 'approval', approvalId });
    expect(ids.read(id.slice(1, -1))).toEqual({ kind: 'approval', approvalId });
    expect(ids.read(id.replace('@example.com', '@evil.test'))).toBeUndefined();
    const other = 'ZZCdEfGhIjKlMnOpQr-_12';
    expect(ids.read(id.replace(approvalId, other))).toBeUndefined();
    const forged = createMessageIds({ secret: 't'.repeat(32), domain: 'example.com' }).forApproval(approvalId, 'grace@example.com');
    expect(ids.read(forged)).toBeUndefined();
  });

  it('gives each recipient its own id for the same approval', () => {
    expect(ids.forApproval(approvalId, 'grace@example.com')).toBe(ids.forApproval(approvalId, 'GRACE@example.com'));
    expect(ids.forApproval(approvalId, 'grace@example.com')).not.toBe(ids.forApproval(approvalId, 'ada@example.com'));
  });

  it('derives an answer id from the idempotency key, the same every time', () => {
    const id = ids.forDelivery('["turn-1","envelope","email","grace@example.com"]');
    expect(id).toBe(ids.forDelivery('["turn-1","envelope","email","grace@example.com"]'));
    expect(id).not.toBe(ids.forDelivery('["turn-2","envelope","email","grace@example.com"]'));
    expect(ids.read(id)).toEqual({ kind: 'delivery' });
    expect(ids.read('<CAF=abc@mail.gmail.com>')).toBeUndefined();
  });

  it('lists the ids of a folded References header', () => {
    expect(messageIdsIn('<a@x>\r\n <b@y>,<c@z> junk')).toEqual(['<a@x>', '<b@y>', '<c@z>']);
    expect(messageIdsIn(['<a@x>', '<b@y>'])).toEqual(['<a@x>', '<b@y>']);
    expect(messageIdsIn(undefined)).toEqual([]);
  });
});
