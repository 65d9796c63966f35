import type { ApprovalAuditEntry, ApprovalRecord, ApprovalStore } from '../../src/runtime/approvals/approval-types.ts';

function unused(): Promise<never> {
  return Promise.reject(new Error('a read-only approval store cannot change approvals'));
}

/**
 * An in-memory {@link ApprovalStore} answering the read side (get, audit, list newest first) from
 * fixed records, for tests of operator views; every writing method rejects.
 */
export function readOnlyApprovalStore(records: readonly ApprovalRecord[], audits: Readonly<Record<string, readonly ApprovalAuditEntry[]>>): ApprovalStore {
  return {
    create: unused,
    findByShortCode: unused,
    pendingFor: unused,
    decide: unused,
    expire: unused,
    claimExecution: unused,
    saveExecution: unused,
    get: (id) => Promise.resolve(records.find((record) => record.approvalId === id)),
    audit: (id) => Promise.resolve([...(audits[id] ?? [])]),
    list: (options) =>
      Promise.resolve(
        records
          .filter((record) => options?.status === undefined || record.status === options.status)
          .toSorted((a, b) => b.createdAt.localeCompare(a.createdAt))
          .slice(0, options?.limit ?? 100),
      ),
  };
}
