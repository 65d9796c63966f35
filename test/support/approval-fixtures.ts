import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';

/**
 * An approval record for tests of code that reads approvals (routes, pages, commands): a pending
 * `book_flight` request from the web chat, decided by nobody yet, with every field overridable.
 */
export function sampleApproval(overrides: Partial<ApprovalRecord> & Pick<ApprovalRecord, 'approvalId' | 'status'>): ApprovalRecord {
  return {
    shortCode: 'K7QX2M',
    sessionId: 'session-1',
    turnId: 'turn-1',
    actor: 'concierge',
    toolName: 'book_flight',
    toolCallId: 'toolu_1',
    args: { flight: 'EJ4521', passengers: 2 },
    argsHash: 'ab',
    approvers: [{ channel: 'email', address: 'boss@example.com', personId: 'boss' }],
    requester: { channel: 'web', address: 'web:conv-1' },
    allowRequester: false,
    createdAt: '2030-01-01T10:00:00.000Z',
    expiresAt: '2030-01-01T11:00:00.000Z',
    replyTo: { channel: 'web', address: 'conv-1' },
    ...overrides,
  };
}
