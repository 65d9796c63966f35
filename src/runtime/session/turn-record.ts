import type { Part } from '../../protocol/parts/part.ts';
import type { Injection } from '../injection.ts';
import type { ModelInputBlock, ModelMessage } from '../model/model-types.ts';

/** Why a turn waits instead of running. */
export interface TurnWait {
  /** The turn state that made it wait: `suspended` (approval) or `delegated` (peer agent). */
  readonly turnState: string;
  /** ISO 8601 time after which the wait ends with a timeout. */
  readonly until: string;
  /** What the wait is for, e.g. an approval id. */
  readonly ref?: string;
}

/**
 * The durable state of one running turn, saved after every model call so that another worker can
 * resume it after a crash.
 */
export interface TurnRecord {
  readonly turnId: string;
  readonly sessionId: string;
  /** The actor now answering (changes on `passed`). */
  readonly actor: string;
  /** ISO 8601 start time. */
  readonly startedAt: string;
  /** ISO 8601 time by which the turn must settle. */
  readonly deadlineAt: string;
  /** Model calls made so far in this turn (all actors). */
  readonly step: number;
  /** Corrective retries used on protocol violations. */
  readonly corrective: number;
  /** Handoffs (`passed`) so far. */
  readonly handoffs: number;
  /** How many injections of the turn's inbox have been given to the model. */
  readonly given: number;
  /** This turn's messages, appended to the session history when the turn ends. */
  readonly messages: readonly ModelMessage[];
  readonly status: 'running' | 'waiting' | 'settled';
  /** Set while waiting. */
  readonly wait?: TurnWait;
  /** The settling turn state, once settled. */
  readonly settledAs?: string;
  /** Every part emitted in this turn so far, in order, with its stable id. */
  readonly emitted: readonly EmittedPart[];
  /** Data-bearing events of this turn (tool results carrying domain data), for the envelope. */
  readonly dataEvents: readonly TurnDataEvent[];
  /** Tool calls waiting for approvals (set while the turn is suspended). */
  readonly pendingApprovals?: readonly PendingApproval[];
  /** The results of the same model message's other tool calls, held until the approvals are decided. */
  readonly heldResults?: readonly ModelInputBlock[];
  /** Where this turn's answers go. */
  readonly replyTo: Injection['replyTo'];
  /**
   * What the turn read from outside the operator's control, in words, in the order first read
   * (`email body`, `result of fetch_page`): set once it read any (the turn is then tainted, and
   * approval policies do not let calls run on their own), kept when the turn resumes.
   */
  readonly untrustedReads?: readonly string[];
  /**
   * What the turn's model calls used so far: tokens (input, output, cache reads and writes) and
   * the estimated cost in whole micro-dollars. Added to the conversation index when it settles.
   */
  readonly spent?: { readonly tokens: number; readonly costMicros: number };
}

/** What a new turn starts from: who answers, by when, and where to. */
export interface TurnStart {
  readonly turnId: string;
  readonly sessionId: string;
  readonly actor: string;
  /** Start time, ms since the epoch. */
  readonly at: number;
  /** How long the turn may run, ms. */
  readonly deadlineMs: number;
  readonly replyTo: Injection['replyTo'];
}

/** The record of a turn that has not called the model yet: step 0, running, nothing emitted. */
export function freshTurnRecord(start: TurnStart): TurnRecord {
  return {
    turnId: start.turnId,
    sessionId: start.sessionId,
    actor: start.actor,
    startedAt: new Date(start.at).toISOString(),
    deadlineAt: new Date(start.at + start.deadlineMs).toISOString(),
    step: 0,
    corrective: 0,
    handoffs: 0,
    given: 0,
    messages: [],
    status: 'running',
    emitted: [],
    dataEvents: [],
    replyTo: start.replyTo,
  };
}

/** A part as emitted in a turn. */
export interface EmittedPart {
  /** Stable across retries: `<turnId>.<step>.<block>.<part>` for model parts, `<turnId>.rt.<n>` for the runtime's. */
  readonly partId: string;
  readonly part: Part;
  readonly turnState: string;
  readonly actor: string;
}

/** Domain data a tool produced during the turn. */
export interface TurnDataEvent {
  /** What the data is (`flight-results`); picks the surface template. */
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** The tool that produced it. */
  readonly source: string;
}

/** A tool call that waits for a person's decision. */
export interface PendingApproval {
  readonly approvalId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
}
