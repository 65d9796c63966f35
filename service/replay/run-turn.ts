/**
 * Runs one planned turn on an open bot: its injections go into the conversation's mailbox, its
 * turns run (on the scripted model when the plan has a script), the approvals it asks for are
 * decided as planned, and what it did is collected without judging it.
 */
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import type { EmittedPart } from '../../src/runtime/session/turn-record.ts';
import { applyDecision, putInjection, runTurns, type BotParts, type InjectionInput } from '../testing/bot-core.ts';
import { ScriptExhaustedError, type ScriptStep } from '../testing/scripted-model.ts';
import type { ToolStandIn } from '../testing/stand-in-registry.ts';
import type { TestTurn } from '../testing/test-turn.ts';
import { messageOf } from './log-fields.ts';

/** A decision for one approval a turn asks for. */
export interface PlannedDecision {
  readonly decision: 'granted' | 'denied' | 'expired';
  /** The person who decides; default the requester when allowed, else the first approver. */
  readonly by?: string;
}

/** One turn to run. */
export interface PlannedTurn {
  /** What arrives, in order (all before the turn runs); each without `conversation`, which the run sets. */
  readonly injections: readonly Omit<InjectionInput, 'conversation'>[];
  /** The scripted model's steps for the whole turn; unset when the bot calls a real model. */
  readonly script?: readonly ScriptStep[];
  /** Decisions for the approvals the turn asks for, in the order asked; the turn waits once they run out. */
  readonly decisions: readonly PlannedDecision[];
  /** What answers tool calls in place of their handlers; unset: the handlers run. */
  readonly standIn?: ToolStandIn;
}

/** What a planned turn did. */
export interface RanTurn {
  /** Each run of the turn: the first, then one after each round of decisions. */
  readonly runs: readonly TestTurn[];
  /** The log entries its runs wrote, in order. */
  readonly entries: readonly StoredEventLogEntry[];
  /** The parts its runs emitted, with their ids. */
  readonly emitted: readonly EmittedPart[];
  /** Steps of the script left unused (0 without a script). */
  readonly unusedSteps: number;
  /** Why the run broke off, when it did: the script ran out, a decision was refused, nothing ran. */
  readonly failure?: string;
}

/** Most rounds of decisions one turn gets. */
const MAX_DECISION_ROUNDS = 20;

/** Runs `turn` in conversation `conversation` of `parts`' bot. */
export async function runPlannedTurn(parts: BotParts, conversation: string, turn: PlannedTurn): Promise<RanTurn> {
  const runs: TestTurn[] = [];
  const emitted: EmittedPart[] = [];
  let sessionId: string | undefined;
  for (const injection of turn.injections) sessionId = await putInjection(parts, { ...injection, conversation });
  if (sessionId === undefined) return { runs, entries: [], emitted, unusedSteps: turn.script?.length ?? 0, failure: 'the turn has no message' };
  const before = (await parts.log.read(sessionId, 100_000)).length;
  if (turn.script !== undefined) parts.script.load(turn.script);
  parts.registry.standIn(turn.standIn);
  const decisions = [...turn.decisions];
  let failure: string | undefined;
  try {
    for (let round = 0; round <= MAX_DECISION_ROUNDS; round += 1) {
      const ran = await runTurns(parts, sessionId);
      runs.push(ran);
      emitted.push(...parts.runner.emitted());
      if (ran.approvals.length === 0 || decisions.length === 0) break;
      for (const approval of ran.approvals) {
        const next = decisions.shift();
        if (next === undefined) break;
        await applyDecision(parts, approval.approvalId, next.decision, next.by === undefined ? {} : { by: next.by });
      }
    }
  } catch (error) {
    failure = messageOf(error);
  } finally {
    parts.registry.standIn(undefined);
  }
  const scriptFailure = turn.script === undefined ? undefined : parts.script.failure();
  if (scriptFailure instanceof ScriptExhaustedError) failure = `the turn asked for model call ${String(scriptFailure.used + 1)}; the script has ${String(scriptFailure.used)}`;
  const entries = (await parts.log.read(sessionId, 100_000)).slice(before);
  const unusedSteps = turn.script === undefined ? 0 : parts.script.unused();
  return { runs, entries, emitted, unusedSteps, ...(failure === undefined ? {} : { failure }) };
}
