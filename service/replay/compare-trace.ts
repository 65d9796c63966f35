/**
 * Where a replayed turn departs from its recording: another tool called, other arguments, another
 * outcome, a respond() call the current validation rejects, other parts, another turn state.
 */
import type { FixtureOutcome, FixturePart, FixtureToolCall } from './fixture-types.ts';
import type { TurnTrace } from './log-trace.ts';
import { sameUnlessMasked } from './masked-args.ts';

/** What kind of departure it is. */
export type DepartureKind = 'tool' | 'arguments' | 'respond' | 'violation' | 'parts' | 'turn_state' | 'missing_tool' | 'model_calls' | 'result' | 'failure';

/** One place where the replay departs from the recording. */
export interface Departure {
  /** The turn, counted from 1. */
  readonly turn: number;
  readonly kind: DepartureKind;
  readonly message: string;
}

function describeCall(call: FixtureToolCall): string {
  return `${call.tool} (${call.outcome})`;
}

/** The first difference of the tool calls: the calls after it follow from it and are not listed. */
function toolDepartures(turn: number, recorded: readonly FixtureToolCall[], replayed: readonly FixtureToolCall[]): { turn: number; kind: DepartureKind; message: string }[] {
  for (let index = 0; index < Math.max(recorded.length, replayed.length); index += 1) {
    const was = recorded[index];
    const now = replayed[index];
    const which = `tool call ${String(index + 1)}`;
    if (was === undefined && now !== undefined) return [{ turn, kind: 'tool', message: `${which}: the replay called ${describeCall(now)}, which the recording did not` }];
    if (was !== undefined && now === undefined) return [{ turn, kind: 'tool', message: `${which}: the recording called ${describeCall(was)}, the replay made no such call` }];
    if (was === undefined || now === undefined) continue;
    if (was.tool !== now.tool) return [{ turn, kind: 'tool', message: `${which}: recorded ${describeCall(was)}, the replay called ${describeCall(now)}` }];
    if (was.args !== undefined && now.args !== undefined && !sameUnlessMasked(was.args, now.args)) {
      return [{ turn, kind: 'arguments', message: `${which}: ${was.tool} got other arguments: recorded ${JSON.stringify(was.args)}, replayed ${JSON.stringify(now.args)}` }];
    }
    if (was.outcome !== now.outcome) {
      const why = now.error === undefined ? '' : `: ${now.error}`;
      return [{ turn, kind: 'tool', message: `${which}: ${was.tool} ended ${was.outcome} in the recording, ${now.outcome} in the replay${why}` }];
    }
  }
  return [];
}

function describePart(part: FixturePart | undefined): string {
  if (part === undefined) return 'no part';
  return part.text === undefined ? part.partType : `${part.partType} "${part.text}"`;
}

/** The first difference of the parts: a type, or a text known on both sides. */
function partDepartures(turn: number, recorded: readonly FixturePart[], replayed: readonly FixturePart[]): Departure[] {
  for (let index = 0; index < Math.max(recorded.length, replayed.length); index += 1) {
    const was = recorded[index];
    const now = replayed[index];
    const sameType = was?.partType === now?.partType;
    const sameText = was?.text === undefined || now?.text === undefined || was.text === now.text;
    if (!sameType || !sameText) return [{ turn, kind: 'parts', message: `part ${String(index + 1)}: recorded ${describePart(was)}, replayed ${describePart(now)}` }];
  }
  return [];
}

/** Violations the replay met that the recording did not (a respond() rejected now), and the other way round. */
function violationDepartures(turn: number, recorded: readonly string[], replayed: TurnTrace['violations']): Departure[] {
  const left = [...recorded];
  const departures: Departure[] = [];
  for (const violation of replayed) {
    const index = left.indexOf(violation.kind);
    if (index !== -1) {
      left.splice(index, 1);
      continue;
    }
    const message = violation.kind === 'invalid_respond'
      ? `a respond() call is rejected by the current validation: ${violation.detail}`
      : `the runtime corrected the model (${violation.kind}) where the recording has no such correction: ${violation.detail}`;
    departures.push({ turn, kind: violation.kind === 'invalid_respond' ? 'respond' : 'violation', message });
  }
  for (const kind of left) departures.push({ turn, kind: 'violation', message: `the recording has a correction (${kind}) that the replay no longer needs` });
  return departures;
}

/** Every departure of `replayed` from the recorded turn `recorded` (calls and outcome). */
export function compareTurn(turn: number, recorded: { readonly toolCalls: readonly FixtureToolCall[]; readonly outcome: FixtureOutcome }, replayed: TurnTrace): Departure[] {
  const departures = [
    ...toolDepartures(turn, recorded.toolCalls, replayed.toolCalls),
    ...violationDepartures(turn, recorded.outcome.violations, replayed.violations),
    ...partDepartures(turn, recorded.outcome.parts, replayed.outcome.parts),
  ];
  const was = recorded.outcome.turnState;
  const now = replayed.outcome.turnState;
  if (was !== now) departures.push({ turn, kind: 'turn_state', message: `the turn ended "${was ?? 'unknown'}" in the recording, "${now ?? 'unknown'}" in the replay` });
  return departures;
}
