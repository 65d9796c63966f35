import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';

/**
 * Where a running turn's output goes. The runtime's implementation applies the delivery rules of
 * each destination's transport and enqueues idempotent outbound deliveries.
 */
export interface TurnOutput {
  /** One part, as soon as it is emitted. May be called again with the same `partId` after a crash. */
  part(turn: TurnRecord, emitted: EmittedPart): Promise<void>;
  /** The turn's state changed (every respond() call declares one). */
  state(turn: TurnRecord, turnState: string, actor: string): Promise<void>;
  /** The turn settled in `turnState`; `turn.emitted` and `turn.dataEvents` hold what it produced. */
  settle(turn: TurnRecord, turnState: string): Promise<void>;
}
