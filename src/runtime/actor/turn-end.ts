import { turnSettlement } from '../inspect/turn-settlement.ts';
import type { HeldLock } from '../session/held-lock.ts';
import type { EventLogEntry } from '../session/event-log.ts';
import type { EmittedPart } from '../session/turn-record.ts';
import type { LiveTurn } from './live-turn.ts';
import { trimJoinedHistory } from './model-request.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

/** History budget, in tokens, of an actor that sets none. The stored history keeps twice this. */
const DEFAULT_HISTORY_TOKEN_BUDGET = 60_000;

/** The two ways a turn ends, bound to one {@link LiveTurn} (each replaces its record). */
export interface TurnEnd {
  /**
   * Settles the turn in `turnState`: saves the record, tells the output, stores the new history
   * (trimmed to twice the actor's `historyTokenBudget`, default 60 000 tokens) with the
   * conversation index's summary, and logs `turn_settled`.
   */
  finish(turnState: string): Promise<void>;
  /**
   * Emits `text` as an error part (logged with `reason`), delivers it, then settles the turn as
   * `error`.
   */
  fail(reason: string, text: string): Promise<void>;
}

/**
 * What the steps of a running turn share: the runner's deps, the turn, its two endings and the
 * clock (`now()` gives ms since the epoch).
 */
export interface TurnScope {
  readonly deps: TurnRunnerDeps;
  readonly turn: LiveTurn;
  readonly end: TurnEnd;
  readonly now: () => number;
}

/**
 * The {@link TurnEnd} of `turn`; with `lock` (the session's, held by this process), a finish that
 * leaves the mailbox empty lets the lock go in its last script.
 */
export function turnEnd(deps: TurnRunnerDeps, turn: LiveTurn, lock?: HeldLock): TurnEnd {
  const finish = async (turnState: string): Promise<void> => {
    turn.record = { ...turn.record, status: 'settled', settledAs: turnState };
    const record = turn.record;
    // The settled record, the turn's log so far and its budget counts are all written before the
    // settlement is delivered; they do not depend on each other, so they share a round trip (the
    // record and the log one script, when the log is on the store's Redis).
    const saved = deps.saveWithLog?.(record) ?? Promise.all([deps.store.saveTurn(record), deps.log.flush?.(record.sessionId)]);
    await Promise.all([saved, turn.counting]);
    await deps.output.settle(record, turnState);
    const settled: EventLogEntry = { type: 'turn_settled', turnId: record.turnId, actor: record.actor, data: { turnState, steps: record.step } };
    const budget = deps.actors.get(record.actor)?.config.limits.historyTokenBudget ?? DEFAULT_HISTORY_TOKEN_BUDGET;
    // The conversation index takes the settlement in the same script as the history.
    const settlement = turnSettlement(record, turn.inbox, turnState, (deps.now ?? Date.now)(), deps.inspect?.redactText);
    const history = trimJoinedHistory(turn.history, record.messages, budget * 2);
    const letGo = lock === undefined ? {} : { lock };
    // The settlement's log (its deliveries and `turn_settled`) is written in the clearing's script
    // when the log is on the store's Redis: both or neither. Otherwise it is written BEFORE the
    // clearing: a Redis that loses the last writes it acknowledged (a crash under `appendfsync
    // everysec`) loses a suffix of them, so either both survive or the turn is still there and is
    // settled again (idempotently) when its job is retried. The clearing first could keep it and
    // lose the log: a turn settled for good that never says so.
    const logWrite = deps.settledLogWrite?.(record.sessionId, settled);
    if (logWrite === undefined) {
      await deps.log.append(record.sessionId, settled);
      await deps.log.flush?.(record.sessionId);
    }
    turn.waitingAfter = await deps.store.finishTurn(record, history, settlement, logWrite === undefined ? letGo : { logWrite, ...letGo });
  };
  const fail = async (reason: string, text: string): Promise<void> => {
    const { sessionId, turnId, actor, step } = turn.record;
    const emitted: EmittedPart = { partId: `${turnId}.rt.${step}`, part: { text, metadata: { partType: 'error' } }, turnState: 'error', actor };
    turn.record = { ...turn.record, emitted: [...turn.record.emitted, emitted] };
    await deps.log.append(sessionId, { type: 'part', turnId, actor, data: { partId: emitted.partId, partType: 'error', reason } });
    await deps.output.part(turn.record, emitted);
    await finish('error');
  };
  return { finish, fail };
}
