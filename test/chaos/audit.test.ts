/**
 * The chaos run's audit counts what it claims to count: a lost message, a repeated answer, an
 * answer out of order, a message still waiting, approvals decided or executed twice, a storm turn
 * without its error part, and the everysec loss window are each seen (so its zeros mean something).
 */
import { describe, expect, it } from 'vitest';
import type { StoredWebChatEvent } from '../../channels/web/stream/event-store.ts';
import { readAnswers } from '../../chaos/answers.ts';
import { auditRun, type AuditInput, type LeftOver } from '../../chaos/audit.ts';
import type { ConversationScript } from '../../chaos/conversations.ts';
import type { StruckFault } from '../../chaos/faults.ts';
import { problemsOf } from '../../chaos/verdict.ts';

const script = (id: string, count: number, kind: ConversationScript['kind'] = 'regular'): ConversationScript => ({
  id,
  kind,
  messages: Array.from({ length: count }, (_, index) => ({ id: `${id}_${index}`, text: `m:${id}_${index}`, delayMs: 0, approval: false })),
});

/** A response part appended at `ms`, naming `ids`, in a turn that settles. */
function answer(ms: number, turnId: string, ids: string): StoredWebChatEvent[] {
  return [
    { id: `${ms}-0`, event: { type: 'part', turnId, partId: `${turnId}.0`, turnState: 'complete', part: { text: `re ${ids}`, metadata: { partType: 'response' } } } },
    { id: `${ms}-1`, event: { type: 'turn', turnId, turnState: 'complete' } },
  ];
}

/** An `error` part appended at `ms`; its turn settles in `error` only when `settles`. */
function errorPart(ms: number, turnId: string, settles = true): StoredWebChatEvent[] {
  const part: StoredWebChatEvent = { id: `${ms}-0`, event: { type: 'part', turnId, partId: `${turnId}.0`, turnState: 'error', part: { text: 'overloaded', metadata: { partType: 'error' } } } };
  return settles ? [part, { id: `${ms}-1`, event: { type: 'turn', turnId, turnState: 'error' } }] : [part];
}

const nothingLeft: LeftOver = { turnRecords: 0, waitingIds: new Set(), toolRuns: new Map(), approvalAudits: new Map(), turnsUnsettledInLog: 0 };

function input(overrides: Partial<AuditInput> & Pick<AuditInput, 'answers'>): AuditInput {
  return {
    fsync: 'always',
    scripts: [script('c', 4), script('s', 1, 'storm')],
    load: {
      accepted: [0, 1, 2, 3].map((index) => ({ conversation: 'c', id: `c_${index}`, index, acceptedAt: 1_000 * (index + 1) })),
      unaccepted: [],
      approvals: [],
      cardsMissing: [],
    },
    faults: [],
    leftOver: nothingLeft,
    storm: { transientRefusals: 0, retriedOk: 0, persistentRefusals: 0 },
    modelCalls: [],
    ...overrides,
  };
}

describe('the chaos audit', () => {
  it('counts a clean run as clean', () => {
    const answers = readAnswers(new Map([
      ['c', [...answer(5_000, 't1', 'c_0 c_1'), ...answer(6_000, 't2', 'c_2'), ...answer(7_000, 't3', 'c_3')]],
      ['s', errorPart(8_000, 't4')],
    ]));
    const figures = auditRun(input({ answers }));
    expect(problemsOf(figures)).toEqual([]);
    expect(figures.answered).toBe(4);
    expect(figures.stormTurnsEndedInError).toBe(1);
  });

  it('sees a lost message, a repeat, a reordering, a waiting message and a storm turn without its error part', () => {
    const answers = readAnswers(new Map([['c', [...answer(5_000, 't1', 'c_1'), ...answer(6_000, 't2', 'c_0'), ...answer(7_000, 't3', 'c_1')]]]));
    const leftOver: LeftOver = { ...nothingLeft, waitingIds: new Set(['c_3']), turnRecords: 1 };
    const figures = auditRun(input({ answers, leftOver }));
    expect(figures).toMatchObject({ lost: 1, duplicated: 1, outOfOrder: 1, stuck: 2, unexpectedErrors: 1, lostToRedisKill: 0 });
    expect(problemsOf(figures)).toHaveLength(5);
  });

  it('sees a refused message, unfinished approvals, an unsettled turn, an unexpected error part and an unrecovered fault', () => {
    const answers = readAnswers(new Map([
      ['c', [...answer(5_000, 't1', 'c_0 c_1'), ...answer(6_000, 't2', 'c_2'), ...errorPart(6_500, 't3', false)]],
      ['s', errorPart(8_000, 't4')],
    ]));
    const load: AuditInput['load'] = {
      accepted: [0, 1, 2].map((index) => ({ conversation: 'c', id: `c_${index}`, index, acceptedAt: 1_000 * (index + 1) })),
      unaccepted: [{ conversation: 'c', id: 'c_3', status: 400 }],
      approvals: [{ conversation: 'c', approvalId: 'apr_1', statuses: [undefined, 503] }],
      cardsMissing: ['c'],
    };
    const faults: StruckFault[] = [{ kind: 'web SIGKILL', at: 7_000, backAt: 7_100 }];
    const figures = auditRun(input({ answers, load, faults }));
    expect(figures).toMatchObject({ answered: 3, unaccepted: 1, lost: 0, stuck: 1, approvalsUnfinished: 2, unexpectedErrors: 1, stormTurnsEndedInError: 1 });
    expect(figures.recoveries.find((recovery) => recovery.kind === 'web SIGKILL')?.timesMs).toEqual([undefined]);
    expect(problemsOf(figures, ['script threw'])).toHaveLength(6);
    expect(auditRun(input({ answers, load, leftOver: { ...nothingLeft, turnsUnsettledInLog: 2 } })).stuck).toBe(2);
  });

  it('reports a loss within 2 s before a Redis SIGKILL apart under everysec only', () => {
    const answers = readAnswers(new Map([['c', [...answer(5_000, 't1', 'c_0 c_1'), ...answer(6_000, 't2', 'c_3')]]]));
    const faults: StruckFault[] = [{ kind: 'Redis SIGKILL', at: 3_500, backAt: 3_600 }];
    expect(auditRun(input({ answers, faults, fsync: 'everysec' }))).toMatchObject({ lost: 0, lostToRedisKill: 1 });
    expect(auditRun(input({ answers, faults }))).toMatchObject({ lost: 1, lostToRedisKill: 0 });
  });

  it('sees an approval decided twice and a call executed twice', () => {
    const answers = readAnswers(new Map([['c', answer(5_000, 't1', 'c_0 c_1 c_2 c_3')]]));
    const granted = { at: '2030-01-01T00:00:00.000Z', action: 'granted' as const };
    const leftOver: LeftOver = {
      ...nothingLeft,
      approvalAudits: new Map([['apr_1', [granted, granted]], ['apr_2', [granted, { ...granted, action: 'executed' as const }]]]),
      toolRuns: new Map([['apr_2', 2]]),
    };
    const load = { ...input({ answers }).load, approvals: [{ conversation: 'c', approvalId: 'apr_2', statuses: [200, 200] }] };
    const figures = auditRun(input({ answers, leftOver, load }));
    expect(figures).toMatchObject({ approvalsRequested: 2, approvalsDecidedTwice: 2, approvalsExecutedTwice: 1 });
  });

  it('times a worker kill by the turns the killed worker was running', () => {
    const answers = readAnswers(new Map([['c', [...answer(2_500, 't1', 'c_0'), ...answer(9_000, 't2', 'c_1'), ...answer(9_500, 't3', 'c_2 c_3')]]]));
    const faults: StruckFault[] = [{ kind: 'worker SIGKILL', at: 4_000, backAt: 5_000, worker: 'worker-1' }];
    const modelCalls = [
      { ids: ['c_0'], worker: 'worker-1', at: 2_000, asksApproval: false, storm: false },
      { ids: ['c_1'], worker: 'worker-1', at: 3_900, asksApproval: false, storm: false },
      { ids: ['c_1'], worker: 'worker-2', at: 8_900, asksApproval: false, storm: false },
      { ids: ['c_2', 'c_3'], worker: 'worker-2', at: 3_950, asksApproval: false, storm: false },
    ];
    const figures = auditRun(input({ answers, faults, modelCalls }));
    expect(figures.turnsTakenOver).toBe(1);
    expect(figures.recoveries.find((recovery) => recovery.kind === 'worker SIGKILL')?.timesMs).toEqual([5_000]);
  });
});
