import { describe, expect, it } from 'vitest';
import type { TurnScope } from './turn-end.ts';
import { stopped } from './turn-stop.ts';

function scope(stop: boolean, withdrawn: string[], failed: string[]): TurnScope {
  return {
    deps: {
      stopRequested: () => Promise.resolve(stop),
      approvals: { withdraw: (id: string) => { withdrawn.push(id); return Promise.resolve(); }, store: { expire: () => Promise.reject(new Error('not the store alone')) } },
    },
    turn: { record: { pendingApprovals: [{ approvalId: 'ap-1' }, { approvalId: 'ap-2' }] } },
    end: { fail: (reason: string) => { failed.push(reason); return Promise.resolve(); }, finish: () => Promise.resolve() },
    now: () => 0,
  } as unknown as TurnScope;
}

describe('a turn asked to stop', () => {
  it('withdraws its pending approvals through the gate (approvers are told), then fails as canceled', async () => {
    const withdrawn: string[] = [];
    const failed: string[] = [];
    expect(await stopped(scope(true, withdrawn, failed))).toBe(true);
    expect(withdrawn).toEqual(['ap-1', 'ap-2']);
    expect(failed).toEqual(['canceled']);
  });

  it('goes on when nobody asked it to stop', async () => {
    const withdrawn: string[] = [];
    const failed: string[] = [];
    expect(await stopped(scope(false, withdrawn, failed))).toBe(false);
    expect([...withdrawn, ...failed]).toEqual([]);
  });
});
