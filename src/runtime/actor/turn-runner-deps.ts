import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { TurnBudgets } from '../budgets/turn-budgets.ts';
import type { TurnInspection } from '../inspect/turn-inspection.ts';
import type { ModelClient, ModelTool } from '../model/model-types.ts';
import type { ToolRouter } from '../router/tool-router.ts';
import type { EventLog, EventLogEntry, StreamWrite } from '../session/event-log.ts';
import type { SessionStore } from '../session/session-store.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { MidTurnMode } from './actor-config.ts';
import type { ApprovalGate } from './approval-gate.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import type { TurnOutput } from './turn-output.ts';
import type { MissedMessage } from './undelivered-notice.ts';

/** Everything a turn needs; all passed in. */
export interface TurnRunnerDeps {
  readonly model: ModelClient;
  readonly actors: ReadonlyMap<string, ResolvedActor>;
  /** The actor that takes a session's first turn, and every turn after one that did not pass. */
  readonly entryActor: string;
  /**
   * The actor that answers a channel, and how that channel's mid-turn messages are handled, from
   * `switchboard.yaml`'s `channels`. Unset or `undefined` for a channel: the entry actor and the
   * actor's own `midTurn`.
   */
  readonly channelRoute?: (channel: string) => { readonly actor: string; readonly midTurn?: MidTurnMode } | undefined;
  readonly registry: ToolRegistry;
  readonly partTypes: PartTypeRegistry;
  readonly turnStates: TurnStateRegistry;
  /** The respond() tool in the model's shape, built once from the registries. */
  readonly respondTool: ModelTool;
  readonly store: SessionStore;
  readonly log: EventLog;
  readonly output: TurnOutput;
  readonly router: ToolRouter;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Asks people to approve tool calls that need it. Unset: such calls are refused. */
  readonly approvals?: ApprovalGate;
  /** Names this process in the event log (which worker ran or resumed a turn). Default `<host>:<pid>`. */
  readonly workerId?: string;
  /** Runs the session again at `at` (a delayed turn job), so a wait that nobody ends still times out. */
  readonly scheduleWake?: (sessionId: string, key: string, at: Date) => Promise<void>;
  /**
   * Whether whoever the turn answers asked it to stop (a peer canceled its task). Asked before
   * every model call and before a waiting turn goes on; a turn asked to stop fails with reason
   * `canceled` and says so. Default: never.
   */
  readonly stopRequested?: (record: TurnRecord) => Promise<boolean>;
  /** Wait limit of a `delegated` turn, in ms. Default 10 minutes. */
  readonly delegationTimeoutMs?: number;
  /**
   * Spending budgets and the senders' turn rate: checked before a new turn's first model call (a
   * turn over one settles with an error part saying so, without calling the model), and every
   * model call's usage counted. Unset: nothing is limited or counted.
   */
  readonly budgets?: TurnBudgets;
  /**
   * Takes (and forgets) the messages of the session's earlier turns that were given up with an
   * unknown outcome, so the turn's first model call is told about them (`undelivered-notice.ts`).
   * Asked once per turn. Unset: nothing is asked.
   */
  readonly takeUndelivered?: (sessionId: string) => Promise<readonly MissedMessage[]>;
  /**
   * Takes a session's buffered log entries, with `last` after them, as the one write a settling
   * turn hands to `store.finishTurn` (`BufferedEventLog.takeWrite`), when `log` writes to the
   * store's Redis: the log's `turn_settled` and the turn's clearing are then one script. Unset,
   * the log is written first and the clearing follows once the write is confirmed.
   */
  readonly settledLogWrite?: (sessionId: string, last: EventLogEntry) => StreamWrite;
  /**
   * Saves a settling turn's record and flushes its session's buffered log in one script, when
   * `log` writes to the store's Redis (`BufferedEventLog.flushWith` into `store.saveTurn`). Unset,
   * the save and the flush are sent side by side, two commands.
   */
  readonly saveWithLog?: (record: TurnRecord) => Promise<void>;
  /**
   * What the inspector records beside the log (`src/runtime/inspect/`): each model call's cost,
   * whole calls while capture is on, suspensions in the conversation index. Unset: calls cost 0
   * (logged `priced: false`) and nothing more is recorded.
   */
  readonly inspect?: TurnInspection;
}
