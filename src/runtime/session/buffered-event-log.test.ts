import { describe, expect, it } from 'vitest';
import { createBufferedEventLog } from './buffered-event-log.ts';
import type { BatchEventLog, EventLogEntry, StreamWrite } from './event-log.ts';

/** A batch log that records its writes and what it was asked to prepare. */
function recordingLog(): { log: BatchEventLog; written: EventLogEntry[][]; prepared: EventLogEntry[][] } {
  const written: EventLogEntry[][] = [];
  const prepared: EventLogEntry[][] = [];
  const log: BatchEventLog = {
    append: (_session, entry) => { written.push([entry]); return Promise.resolve('1-0'); },
    appendAll: (_session, entries) => { written.push([...entries]); return Promise.resolve(); },
    read: () => Promise.resolve([]),
    prepare(_session, entries): StreamWrite {
      prepared.push([...entries]);
      return { key: 'log', maxLen: '10', fields: [], written: () => Promise.resolve() };
    },
  };
  return { log, written, prepared };
}

const entry = (type: EventLogEntry['type'], turnId = 't1'): EventLogEntry => ({ type, turnId, data: {} });

describe('a buffered event log', () => {
  it('holds a session\'s entries until flushed, then writes them as one batch', async () => {
    const { log, written } = recordingLog();
    const buffered = createBufferedEventLog(log);
    await buffered.append('s1', entry('turn_started'));
    await buffered.append('s1', entry('part'));
    await buffered.append('s2', entry('turn_started', 't2'));
    expect(written).toEqual([]);
    await buffered.flush('s1');
    await buffered.flush('s1');
    expect(written).toEqual([[entry('turn_started'), entry('part')]]);
  });

  it('hands what it holds, with the last entry after it, to one prepared write, and holds nothing more', async () => {
    const { log, written, prepared } = recordingLog();
    const buffered = createBufferedEventLog(log);
    await buffered.append('s1', entry('delivery'));
    buffered.takeWrite('s1', entry('turn_settled'));
    // With nothing held, the last entry goes alone.
    buffered.takeWrite('s1', entry('turn_settled', 't2'));
    await buffered.flush('s1');
    expect(prepared).toEqual([[entry('delivery'), entry('turn_settled')], [entry('turn_settled', 't2')]]);
    expect(written).toEqual([]);
  });

  it('flushes through a caller\'s write: its entries as one prepared write, nothing when it holds none, and a held write waited for', async () => {
    const { log, written, prepared } = recordingLog();
    const buffered = createBufferedEventLog(log);
    const given: (StreamWrite | undefined)[] = [];
    const save = (logWrite: StreamWrite | undefined): Promise<void> => { given.push(logWrite); return Promise.resolve(); };
    await buffered.append('s1', entry('delivery'));
    await buffered.append('s1', entry('turn_state'));
    await buffered.flushWith('s1', save);
    await buffered.flushWith('s1', save);
    expect(prepared).toEqual([[entry('delivery'), entry('turn_state')]]);
    expect(given.map((logWrite) => logWrite?.key)).toEqual(['log', undefined]);
    expect(written).toEqual([]);

    const { promise: saved, resolve } = Promise.withResolvers<undefined>();
    buffered.hold('s1', saved);
    let flushed = false;
    const flush = buffered.flushWith('s1', save).then(() => { flushed = true; });
    await Promise.resolve();
    await Promise.resolve();
    expect(flushed).toBe(false);
    resolve(undefined);
    await flush;

    buffered.hold('s2', Promise.reject(new Error('record not saved')));
    await buffered.append('s2', entry('part'));
    await Promise.resolve();
    await expect(buffered.flushWith('s2', save)).rejects.toThrow('record not saved');
    expect(given).toHaveLength(3);
  });

  it('makes the next flush wait for a held write, and fail as it does, then forgets it', async () => {
    const { log, written } = recordingLog();
    const buffered = createBufferedEventLog(log);
    const { promise: saved, resolve } = Promise.withResolvers<undefined>();
    buffered.hold('s1', saved);
    await buffered.append('s1', entry('part'));
    let flushed = false;
    const flush = buffered.flush('s1').then(() => { flushed = true; });
    // The entries were sent at once; the flush ends only with the held write.
    expect(written).toEqual([[entry('part')]]);
    await Promise.resolve();
    await Promise.resolve();
    expect(flushed).toBe(false);
    resolve(undefined);
    await flush;
    expect(flushed).toBe(true);

    buffered.hold('s2', Promise.reject(new Error('record not saved')));
    await expect(buffered.flush('s2')).rejects.toThrow('record not saved');
    await expect(buffered.flush('s2')).resolves.toBeUndefined();
  });

  it('waits for every write held since the last flush, with no entry to write', async () => {
    const { log, written } = recordingLog();
    const buffered = createBufferedEventLog(log);
    const order: string[] = [];
    buffered.hold('s1', Promise.resolve().then(() => order.push('first')));
    buffered.hold('s1', Promise.resolve().then(() => order.push('second')));
    await buffered.flush('s1');
    expect(order).toEqual(['first', 'second']);
    expect(written).toEqual([]);
  });

  it('says at once that a held write failed, until the flush that waits for it', async () => {
    const { log } = recordingLog();
    const buffered = createBufferedEventLog(log);
    const { promise: saved, reject } = Promise.withResolvers<undefined>();
    buffered.hold('s1', saved);
    expect(() => { buffered.checkHeld('s1'); }).not.toThrow();
    reject(new Error('record not saved'));
    await Promise.resolve();
    expect(() => { buffered.checkHeld('s1'); }).toThrow('record not saved');
    expect(() => { buffered.checkHeld('s2'); }).not.toThrow();
    await expect(buffered.flush('s1')).rejects.toThrow('record not saved');
    expect(() => { buffered.checkHeld('s1'); }).not.toThrow();
  });

  it('drops what it holds for a session once a held write is known to have failed', async () => {
    const { log, written } = recordingLog();
    const buffered = createBufferedEventLog(log);
    buffered.hold('s1', Promise.reject(new Error('record not saved')));
    await buffered.append('s1', entry('turn_started'));
    await Promise.resolve();
    await expect(buffered.flush('s1')).rejects.toThrow('record not saved');
    await buffered.flush('s1');
    expect(written).toEqual([]);
    // The next turn's entries are written as usual.
    await buffered.append('s1', entry('turn_started', 't2'));
    await buffered.flush('s1');
    expect(written).toEqual([[entry('turn_started', 't2')]]);
  });
});
