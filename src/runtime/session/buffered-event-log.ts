/**
 * An event log that holds a session's entries in memory until `flush`, then writes them as one
 * stream entry: a turn logs ten or so entries, and writing them one by one was a tenth of all the
 * Redis commands a message costs. The turn runner flushes before every delivery leaves the
 * process and when a turn stops running (settled, waiting or failed), so the log is written before
 * anything it records becomes visible, and in order.
 *
 * Only for one process's turns: one turn per session runs at a time (the session lock), so the
 * entries of a session in one buffer belong to that turn. What a crash loses is what the turn had
 * not yet shown to anyone. A write made beside the log can be held (`hold`): the next flush waits
 * for it too, so a turn's first save of its record needs no round trip of its own before the
 * turn's first delivery. Once a held write is known to have failed, the flush drops what it holds
 * for the session and fails: that turn showed nothing, and it is begun again from its mailbox.
 */
import type { BatchEventLog, EventLog, EventLogEntry, StreamWrite } from './event-log.ts';

/** A buffering log. */
export interface BufferedEventLog extends Required<EventLog> {
  /**
   * Takes what the session's buffer holds, with `last` after it, as one stream write for a script
   * to add (the turn's last write, which the session store's finish makes with the clearing).
   * Flush first: a held write is waited for by `flush` only.
   */
  takeWrite(sessionId: string, last: EventLogEntry): StreamWrite;
  /**
   * Flushes the session as `flush` does, but hands its entries to `write` as one stream write
   * (`undefined` when it holds none) for a script that saves something beside them: a settling
   * turn's record and its log in one command.
   */
  flushWith(sessionId: string, write: (logWrite: StreamWrite | undefined) => Promise<void>): Promise<void>;
}

/** The writes held for a session's next flush, and the first of them to fail, once one has. */
interface Held {
  readonly writes: Promise<unknown>[];
  failure?: { readonly error: unknown };
}

/** Throws the error of the first held write known to have failed. */
function throwIfFailed(entry: Held | undefined): void {
  if (entry?.failure !== undefined) throw entry.failure.error;
}

/** Creates a buffering log over `log`; `read` flushes the session first. */
export function createBufferedEventLog(log: BatchEventLog): BufferedEventLog {
  const pending = new Map<string, EventLogEntry[]>();
  const held = new Map<string, Held>();
  // Takes what the session holds and writes its entries with `write`, waiting for its held writes too.
  const drain = async (sessionId: string, write: (entries: EventLogEntry[] | undefined) => Promise<void> | undefined): Promise<void> => {
    const entry = held.get(sessionId);
    held.delete(sessionId);
    const entries = pending.get(sessionId);
    pending.delete(sessionId);
    // The turn's record was not saved: the turn begins again from its mailbox, and what it logged
    // describes nothing that was kept or shown, as after a crash.
    throwIfFailed(entry);
    const written = write(entries);
    // Most flushes hold no write beside the log's own.
    if (entry === undefined) await written;
    else await Promise.all([...entry.writes, written]);
  };
  const flush = (sessionId: string): Promise<void> => drain(sessionId, (entries) => (entries === undefined ? undefined : log.appendAll(sessionId, entries)));
  return {
    append(sessionId, entry) {
      const entries = pending.get(sessionId);
      if (entries === undefined) pending.set(sessionId, [entry]);
      else entries.push(entry);
      return Promise.resolve('');
    },
    flush,
    hold(sessionId, write) {
      const entry: Held = held.get(sessionId) ?? { writes: [] };
      held.set(sessionId, entry);
      entry.writes.push(write);
      write.catch((error: unknown) => { entry.failure ??= { error }; });
    },
    checkHeld(sessionId) {
      throwIfFailed(held.get(sessionId));
    },
    flushWith(sessionId, write) {
      return drain(sessionId, (entries) => write(entries === undefined ? undefined : log.prepare(sessionId, entries)));
    },
    takeWrite(sessionId, last) {
      const entries = pending.get(sessionId) ?? [];
      pending.delete(sessionId);
      return log.prepare(sessionId, [...entries, last]);
    },
    async read(sessionId, count) {
      await flush(sessionId);
      return log.read(sessionId, count);
    },
  };
}
