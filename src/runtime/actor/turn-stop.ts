import type { TurnScope } from './turn-end.ts';

/** Words of the error part of a turn stopped because its caller canceled it. */
const CANCELED_TEXT = 'The request was canceled, so I stopped before finishing it.';

/** Fails the turn (reason `canceled`) when its caller asked it to stop; whether it did. */
export async function stopped(scope: TurnScope): Promise<boolean> {
  if (scope.deps.stopRequested === undefined || !(await scope.deps.stopRequested(scope.turn.record))) return false;
  // Approvers are no longer asked about calls of a turn that will not run them.
  const gate = scope.deps.approvals;
  for (const pending of scope.turn.record.pendingApprovals ?? []) {
    if (gate?.withdraw !== undefined) await gate.withdraw(pending.approvalId);
    else await gate?.store.expire(pending.approvalId);
  }
  await scope.end.fail('canceled', CANCELED_TEXT);
  return true;
}
