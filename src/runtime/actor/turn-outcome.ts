import type { EmittedPart } from '../session/turn-record.ts';
import type { TurnExit } from './live-turn.ts';
import type { ResponseOutcome } from './process-response.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import type { TurnScope } from './turn-end.ts';

/** Wait limit of a `delegated` turn when `delegationTimeoutMs` is unset, in ms (10 minutes). */
const DEFAULT_DELEGATION_TIMEOUT_MS = 600_000;

/**
 * What the turn does after a response was applied, first match wins: a pass hands the turn to
 * another actor, a settling respond() call settles it, a terminal tool's output answers it, a
 * wait state parks it, too many corrective retries fail it. Returns `undefined` when the turn
 * makes another model call (its record then saved).
 */
export async function nextAfterResponse(scope: TurnScope, actor: ResolvedActor, outcome: ResponseOutcome, step: number): Promise<TurnExit | undefined> {
  const { deps, turn, end } = scope;
  const { settle, terminal, waitState } = outcome;
  if (settle?.turnState === 'passed' && settle.passTo !== undefined) return handOff(scope, actor, settle.passTo);
  if (settle !== undefined) {
    await end.finish(settle.turnState);
    return 'settled';
  }
  if (terminal !== undefined) return answerWithTerminal(scope, terminal, step);
  if (waitState !== undefined) return waitFor(scope, waitState, step);
  if (turn.record.corrective > actor.config.limits.maxCorrectiveRetries) {
    await end.fail('protocol_violations', 'Sorry, the assistant could not produce a valid answer. Please try again.');
    return 'settled';
  }
  await deps.store.saveTurn(turn.record);
  return undefined;
}

/** Passes the turn to `passTo` (saved), or fails it past the actor's `maxHandoffs`. */
async function handOff({ deps, turn, end }: TurnScope, actor: ResolvedActor, passTo: string): Promise<TurnExit | undefined> {
  if (turn.record.handoffs >= actor.config.limits.maxHandoffs) {
    await end.fail('max_handoffs', 'Sorry, this request was handed around too many times, so I stopped.');
    return 'settled';
  }
  turn.record = { ...turn.record, actor: passTo, handoffs: turn.record.handoffs + 1 };
  await deps.store.saveTurn(turn.record);
  return undefined;
}

/** Delivers a terminal tool's output as the turn's response part and settles it `complete`. */
async function answerWithTerminal({ deps, turn, end }: TurnScope, terminal: NonNullable<ResponseOutcome['terminal']>, step: number): Promise<TurnExit> {
  const { turnId, actor } = turn.record;
  const part: EmittedPart = { partId: `${turnId}.${step}.terminal`, part: { text: terminal.output, metadata: { partType: 'response', source: terminal.tool } }, turnState: 'complete', actor };
  turn.record = { ...turn.record, emitted: [...turn.record.emitted, part] };
  await deps.output.part(turn.record, part);
  await end.finish('complete');
  return 'settled';
}

/**
 * Parks the turn in `waitState` until now + `delegationTimeoutMs` (default 10 minutes): saves
 * it and schedules a wake-up, so a wait nobody ends still times out.
 */
async function waitFor({ deps, turn, now }: TurnScope, waitState: string, step: number): Promise<TurnExit> {
  const until = new Date(now() + (deps.delegationTimeoutMs ?? DEFAULT_DELEGATION_TIMEOUT_MS));
  turn.record = { ...turn.record, status: 'waiting', wait: { turnState: waitState, until: until.toISOString() } };
  await deps.store.saveTurn(turn.record);
  await deps.scheduleWake?.(turn.record.sessionId, `wake-${turn.record.turnId}-${String(step)}`, until);
  return 'waiting';
}
