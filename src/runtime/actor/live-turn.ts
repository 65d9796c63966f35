import { SwitchboardError } from '../../protocol/errors.ts';
import type { Injection } from '../injection.ts';
import type { ModelMessage } from '../model/model-types.ts';
import type { TurnRecord } from '../session/turn-record.ts';

/**
 * The turn being run. The steps of `runTurn` share it: each replaces `record` (never mutates it)
 * as the turn advances, so the latest record is always the one saved and delivered with.
 */
export interface LiveTurn {
  /** The turn's record as of the last step. */
  record: TurnRecord;
  /** Injections the turn has taken so far (grows when the actor steers). */
  inbox: readonly Injection[];
  /** The conversation before this turn, read once when the turn starts. */
  readonly history: readonly ModelMessage[];
  /**
   * Whether notes of answers earlier turns failed to deliver waited when the turn began (see
   * `TurnInProgress.notesWaiting`); absent when unknown, and then they are looked for.
   */
  readonly notesWaiting?: boolean;
  /** How many injections waited in the mailbox when the turn finished; set by its finish. */
  waitingAfter?: number;
  /**
   * The budget counts of the turn's model calls on their way to Redis (see `countModelCall`):
   * awaited before the turn settles or waits, so they share a round trip with its next writes.
   */
  counting?: Promise<void>;
}

/**
 * How a step left the turn: `'settled'` (it ended) or `'waiting'` (it waits for an approval, a
 * peer or a wake-up). A step that returns `undefined` lets the turn go on.
 */
export type TurnExit = 'settled' | 'waiting';

/** The error thrown when this worker no longer holds the session's lock. */
export function lockLost(sessionId: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError('session.lock_lost', `Lost the lock of session ${sessionId}.`, { cause });
}
