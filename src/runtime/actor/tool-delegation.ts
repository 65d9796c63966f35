import type { ToolDelegation } from '../../protocol/tools/tool-definition.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

/** The turn state of a turn whose tool call waits on a peer agent. */
export const DELEGATED_STATE = 'delegated';

/** What the delegating tool calls of one model response did to the turn; shared by their hooks. */
export interface DelegationState {
  /** The turn's deadline as the delegations so far left it, in ms since the epoch. */
  deadlineMs: number;
  /** The response's emitted parts, in order; progress parts are appended here. */
  readonly emitted: EmittedPart[];
}

/** Most progress parts one tool call shows (each is kept in the turn record). */
export const MAX_PROGRESS_PARTS_PER_CALL = 20;

/** Where one tool call's hook delivers. */
export interface DelegationScope {
  readonly deps: Pick<TurnRunnerDeps, 'log' | 'output'> & { readonly store: Pick<TurnRunnerDeps['store'], 'saveTurn'> };
  readonly record: TurnRecord;
  /** Prefix of the call's progress part ids, `<turnId>.<step>.<blockIndex>`; stable across retries. */
  readonly partIdPrefix: string;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

/**
 * The {@link ToolDelegation} hook of one tool call. `begin` moves `state.deadlineMs` to
 * `max(deadlineMs, now) + budgetMs`, saves the turn record with that deadline (so a turn retried
 * after a crash during the delegation keeps it), and logs and delivers the `delegated` state;
 * `progress` emits a `progress` part with id `<partIdPrefix>.peer.<n>` (n from 1), logs it,
 * delivers it and appends it to `state.emitted`. A progress text equal to the call's previous one
 * is dropped, and so is every one after the call's {@link MAX_PROGRESS_PARTS_PER_CALL}th part.
 */
export function createToolDelegation(scope: DelegationScope, state: DelegationState): ToolDelegation {
  const { deps, record, partIdPrefix, now } = scope;
  const { sessionId, turnId, actor } = record;
  let progressCount = 0;
  let lastText: string | undefined;
  return {
    async begin(budgetMs) {
      state.deadlineMs = Math.max(state.deadlineMs, now()) + Math.max(0, budgetMs);
      const deadlineAt = new Date(state.deadlineMs).toISOString();
      await deps.store.saveTurn({ ...record, deadlineAt });
      await deps.log.append(sessionId, { type: 'turn_state', turnId, actor, data: { turnState: DELEGATED_STATE, budgetMs, deadlineAt } });
      await deps.output.state(record, DELEGATED_STATE, actor);
    },
    async progress(text) {
      if (text === lastText || progressCount >= MAX_PROGRESS_PARTS_PER_CALL) return;
      lastText = text;
      progressCount += 1;
      const emitted: EmittedPart = {
        partId: `${partIdPrefix}.peer.${String(progressCount)}`,
        part: { text, metadata: { partType: 'progress' } },
        turnState: DELEGATED_STATE,
        actor,
      };
      state.emitted.push(emitted);
      await deps.log.append(sessionId, { type: 'part', turnId, actor, data: { partId: emitted.partId, partType: 'progress', turnState: DELEGATED_STATE } });
      await deps.output.part(record, emitted);
    },
  };
}
