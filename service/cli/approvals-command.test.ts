import { describe, expect, it } from 'vitest';
import type { ApprovalAuditEntry, ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import { APPROVALS_USAGE, runApprovalsCommand } from './approvals-command.ts';
import { readOnlyApprovalStore } from '../../test/support/read-only-approval-store.ts';
import { sampleApproval } from '../../test/support/approval-fixtures.ts';

function approval(id: string, status: ApprovalRecord['status'], createdAt: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return sampleApproval({ approvalId: id, status, createdAt, ...extra });
}

const records = [
  approval('appr-pending', 'pending', '2030-01-01T10:00:00.000Z'),
  approval('appr-denied', 'denied', '2030-01-01T09:00:00.000Z', {
    shortCode: 'P3RT9W',
    decidedBy: { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true },
    decidedAt: '2030-01-01T09:10:00.000Z',
    reason: 'too expensive',
  }),
];

const audits: Record<string, ApprovalAuditEntry[]> = {
  'appr-denied': [
    { at: '2030-01-01T09:00:00.000Z', action: 'requested', by: { channel: 'web', address: 'web:conv-1' } },
    { at: '2030-01-01T09:05:00.000Z', action: 'refused', by: { channel: 'web', address: 'web:conv-1' }, detail: 'the requester may not decide' },
    { at: '2030-01-01T09:10:00.000Z', action: 'denied', by: { channel: 'email', address: 'boss@example.com', personId: 'boss', verified: true } },
  ],
};

const store = readOnlyApprovalStore(records, audits);

async function run(...args: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const code = await runApprovalsCommand(args, store, { write: (chunk: string) => (text += chunk) });
  return { code, text };
}

describe('switchboard approvals list', () => {
  it('prints a table of every approval', async () => {
    const { code, text } = await run('list');
    expect(code).toBe(0);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CODE\s+TOOL\s+STATUS\s+REQUESTER\s+EXPIRES \/ DECIDED$/);
    expect(lines[1]).toMatch(/^appr-pending\s+K7QX2M\s+book_flight\s+pending\s+web:conv-1\s+expires 2030-01-01T11:00:00.000Z$/);
    expect(lines[2]).toMatch(/^appr-denied\s+P3RT9W\s+book_flight\s+denied\s+web:conv-1\s+decided 2030-01-01T09:10:00.000Z$/);
  });

  it('filters by status, in both spellings', async () => {
    for (const args of [['--status', 'denied'], ['--status=denied']]) {
      const { code, text } = await run('list', ...args);
      expect(code).toBe(0);
      expect(text).toContain('appr-denied');
      expect(text).not.toContain('appr-pending');
    }
    expect(await run('list', '--status', 'expired')).toEqual({ code: 0, text: 'No expired approvals.\n' });
  });

  it.each([[['--status']], [['--status', 'maybe']], [['--all']]])('exits 2 with the usage for %j', async (args) => {
    const { code, text } = await run('list', ...args);
    expect(code).toBe(2);
    expect(text).toContain(APPROVALS_USAGE);
  });
});

describe('switchboard approvals show', () => {
  it('prints the record and its audit trail', async () => {
    const { code, text } = await run('show', 'appr-denied');
    expect(code).toBe(0);
    expect(text).toContain('status:');
    expect(text).toMatch(/arguments:\s+flight: "EJ4521", passengers: 2/);
    expect(text).toMatch(/decided:\s+boss \(email:boss@example.com\), verified at 2030-01-01T09:10:00.000Z/);
    expect(text).toMatch(/reason:\s+too expensive/);
    expect(text).toContain('audit trail:');
    expect(text).toContain('2030-01-01T09:05:00.000Z  refused    web:conv-1: the requester may not decide');
  });

  it('says what each identity rested on when the channel recorded it', async () => {
    const by = { channel: 'web', address: 'web:b_AAAAAAAAAAAAAAAAAAAAAA', personId: 'ada', verified: true, basis: 'web session cookie; sign-in link: invite by operator' };
    const decided = approval('appr-web', 'granted', '2030-01-01T08:00:00.000Z', { decidedBy: by, decidedAt: '2030-01-01T08:05:00.000Z' });
    let text = '';
    await runApprovalsCommand(['show', 'appr-web'], readOnlyApprovalStore([decided], { 'appr-web': [{ at: '2030-01-01T08:05:00.000Z', action: 'granted', by }] }), {
      write: (chunk: string) => (text += chunk),
    });
    expect(text).toContain('ada (web:b_AAAAAAAAAAAAAAAAAAAAAA), verified, by web session cookie; sign-in link: invite by operator');
  });

  it('names a web identity once and every other identity by its channel and address', async () => {
    const { text } = await run('show', 'appr-pending');
    expect(text).toMatch(/requester:\s+web:conv-1\n/);
    expect(text).toMatch(/approvers:\s+boss \(email:boss@example.com\)\n/);
    expect(text).not.toContain('web:web:');
  });

  it('exits 1 with a clear message for an unknown id', async () => {
    const { code, text } = await run('show', 'nope');
    expect(code).toBe(1);
    expect(text).toContain('No approval with id "nope"');
  });

  it.each([[[]], [['show']], [['show', 'a', 'b']], [['approve', 'x']]])('exits 2 with the usage for %j', async (args) => {
    const { code, text } = await run(...args);
    expect(code).toBe(2);
    expect(text).toBe(`${APPROVALS_USAGE}\n`);
  });
});
