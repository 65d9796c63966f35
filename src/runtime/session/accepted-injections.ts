/**
 * The injections a process accepted into its sessions' mailboxes and no turn has begun from yet,
 * oldest first, each with the JSON it was stored as. A session's turns begin from its messages in
 * order, so the oldest one remembered is usually the one the next begin moves into the inbox: the
 * begin can offer a turn record made from it, saved in its own script when the JSON matches.
 * Forgetting costs a round trip (the record saved apart), never a wrong answer: the begin compares
 * what it offers with what it moved.
 */
import type { Injection } from '../injection.ts';
import { recentMap } from '../memo/recent-map.ts';

/** An injection as it was accepted: the JSON the mailbox holds. */
export interface AcceptedInjection {
  readonly injection: Injection;
  readonly json: string;
}

/** What {@link acceptedInjections} remembers. */
export interface AcceptedInjections {
  /** Remembers `injection`, about to be stored in `sessionId`'s mailbox; answers its JSON, to store. */
  stored(sessionId: string, injection: Injection): string;
  /** Forgets the injection stored as `json` (the very string {@link stored} gave): its accept stored nothing. */
  notStored(sessionId: string, json: string): void;
  /** The oldest injection remembered for the session. */
  oldest(sessionId: string): AcceptedInjection | undefined;
  /** Forgets the injection a begin moved (`json`, read back from Redis) and every one remembered before it. */
  moved(sessionId: string, json: string): void;
}

/** Sessions remembered (the least recently accepted into forgotten first), and injections each at most. */
const SESSIONS = 1000;
const PER_SESSION = 32;

/** An {@link AcceptedInjections} of at most `sessions` sessions (default 1000; 0 remembers nothing), 32 injections each. */
export function acceptedInjections(sessions = SESSIONS): AcceptedInjections {
  const bySession = recentMap<string, AcceptedInjection[]>(sessions);
  // Drops entries `from` to `to` of the session's list (the whole session when that is all of it).
  const drop = (sessionId: string, waiting: AcceptedInjection[], from: number, to: number): void => {
    if (to - from + 1 === waiting.length) bySession.delete(sessionId);
    else waiting.splice(from, to - from + 1);
  };
  return {
    stored(sessionId, injection) {
      const json = JSON.stringify(injection);
      const waiting = bySession.get(sessionId) ?? [];
      if (waiting.length < PER_SESSION) waiting.push({ injection, json });
      // Set again, so the session is the newest: the least recently accepted into go first.
      bySession.set(sessionId, waiting);
      return json;
    },
    notStored(sessionId, json) {
      const waiting = bySession.get(sessionId);
      // From the newest: a repeat stored as the very same JSON as an earlier accept is the later one.
      const at = waiting?.findLastIndex((entry) => entry.json === json) ?? -1;
      if (waiting !== undefined && at >= 0) drop(sessionId, waiting, at, at);
    },
    oldest(sessionId) {
      return bySession.get(sessionId)?.[0];
    },
    moved(sessionId, json) {
      const waiting = bySession.get(sessionId);
      const at = waiting?.findIndex((entry) => entry.json === json) ?? -1;
      if (waiting !== undefined && at >= 0) drop(sessionId, waiting, 0, at);
    },
  };
}
