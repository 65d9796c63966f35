import { describe, expect, it } from 'vitest';
import type { EventLogEntry, StreamWrite } from '../session/event-log.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { HeldLock } from '../session/held-lock.ts';
import type { FinishOptions } from '../session/session-store.ts';
import { turnEnd } from './turn-end.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const record: TurnRecord = {
  turnId: 'turn-1', sessionId: 's1', actor: 'concierge', startedAt: '2026-11-26T10:00:00Z', deadlineAt: '2026-11-26T10:02:00Z',
  step: 2, corrective: 0, handoffs: 0, given: 1, messages: [], status: 'running', emitted: [], dataEvents: [], replyTo: { channel: 'web', address: 'c1' },
};

/** Deps that record, in order, what reached Redis: flushed log batches, saves and the clearing. */
function recordingDeps(): { deps: TurnRunnerDeps; writes: string[] } {
  const writes: string[] = [];
  let buffered: EventLogEntry[] = [];
  const deps = {
    actors: new Map(),
    store: {
      saveTurn: () => { writes.push('saveTurn'); return Promise.resolve(); },
      finishTurn: () => { writes.push('finishTurn'); return Promise.resolve(0); },
    },
    log: {
      append: (_session: string, entry: EventLogEntry) => { buffered.push(entry); return Promise.resolve(''); },
      flush: () => {
        if (buffered.length > 0) writes.push(`log: ${buffered.map((entry) => entry.type).join(', ')}`);
        buffered = [];
        return Promise.resolve();
      },
      read: () => Promise.resolve([]),
    },
    output: {
      settle: (turn: TurnRecord) => { writes.push(`settle ${turn.status}`); return Promise.resolve(); },
    },
  } as unknown as TurnRunnerDeps;
  return { deps, writes };
}

describe('a turn that settles', () => {
  it('writes its turn_settled entry before the turn is cleared, so a Redis that loses its last writes cannot keep one without the other', async () => {
    const { deps, writes } = recordingDeps();
    await turnEnd(deps, { record, inbox: [], history: [] }).finish('complete');
    expect(writes).toEqual(['saveTurn', 'settle settled', 'log: turn_settled', 'finishTurn']);
  });

  it('hands its last log entries to the clearing, as one script, when the log is on the store\'s Redis', async () => {
    const { deps, writes } = recordingDeps();
    const calls: FinishOptions[] = [];
    const taken: EventLogEntry[][] = [];
    const logWrite: StreamWrite = { key: 'sb:s:s1:log', maxLen: '10000', fields: [], written: () => Promise.resolve() };
    const store = {
      ...deps.store,
      finishTurn: (_record: TurnRecord, _history: unknown, _settlement: unknown, options: FinishOptions = {}) => {
        calls.push(options);
        writes.push(options.logWrite === undefined ? 'finishTurn' : 'finishTurn with the log');
        return Promise.resolve(3);
      },
    };
    const settledLogWrite = (_session: string, last: EventLogEntry): StreamWrite => { taken.push([last]); return logWrite; };
    const folded = { ...deps, store, settledLogWrite } as unknown as TurnRunnerDeps;
    const turn = { record, inbox: [], history: [] };
    const lock: HeldLock = { key: 'sb:session-lock:s1', token: 't1', letGo: () => undefined };
    await turnEnd(folded, turn, lock).finish('complete');
    expect(calls).toEqual([{ logWrite, lock }]);
    expect(taken.map((entries) => entries.map((entry) => entry.type))).toEqual([['turn_settled']]);
    // Nothing of the settlement's log is written apart from the clearing.
    expect(writes).toEqual(['saveTurn', 'settle settled', 'finishTurn with the log']);
    expect((turn as { waitingAfter?: number }).waitingAfter).toBe(3);
  });

  it('saves its record and flushes its log in one write, before the settlement, when the log is on the store\'s Redis', async () => {
    const { deps, writes } = recordingDeps();
    const saved: TurnRecord[] = [];
    const saveWithLog = (settling: TurnRecord): Promise<void> => { saved.push(settling); writes.push('saveTurn with the log'); return Promise.resolve(); };
    await turnEnd({ ...deps, saveWithLog }, { record, inbox: [], history: [] }).finish('complete');
    expect(saved.map(({ status, settledAs }) => ({ status, settledAs }))).toEqual([{ status: 'settled', settledAs: 'complete' }]);
    expect(writes).toEqual(['saveTurn with the log', 'settle settled', 'log: turn_settled', 'finishTurn']);
  });

  it('settles nothing while a budget count of the turn failed: the error ends the turn before its answer leaves', async () => {
    const { deps, writes } = recordingDeps();
    const counting = Promise.reject(new Error('Redis is away'));
    counting.catch(() => undefined);
    const turn = { record, inbox: [], history: [], counting };
    await expect(turnEnd(deps, turn).finish('complete')).rejects.toThrow('Redis is away');
    expect(writes).toEqual(['saveTurn']);
  });
});
