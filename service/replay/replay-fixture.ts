/**
 * Replays a recorded conversation on an open bot: each turn's injections go in, the model is a
 * script answering with the recorded responses, tools answer with the recorded results (no handler
 * runs), the recorded decisions are taken; then each turn is compared with its recording.
 */
import { randomUUID } from 'node:crypto';
import type { BotParts } from '../testing/bot-core.ts';
import type { ScriptStep } from '../testing/scripted-model.ts';
import { compareTurn, type Departure } from './compare-trace.ts';
import { FIXTURE_FORMAT, type FixtureTurn, type ReplayFixture, type ToolOutcome } from './fixture-types.ts';
import { traceOf, type TurnTrace } from './log-trace.ts';
import { recordedTools, type AnsweredCall } from './recorded-tools.ts';
import { runPlannedTurn, type PlannedDecision, type PlannedTurn } from './run-turn.ts';

export type { Departure, DepartureKind } from './compare-trace.ts';

/** What a replay found. */
export interface ReplayReport {
  /** How many turns were replayed. */
  readonly turns: number;
  /** Where the replay departs from the recording, turn by turn; empty when it does not. */
  readonly departures: readonly Departure[];
  /** What the recording lacked, in words (the fixture's notes). */
  readonly notes: readonly string[];
}

/** Options of {@link replayOn}. */
export interface ReplayOptions {
  /** Replays only this turn (counted from 1). Default: every turn. */
  readonly turn?: number;
}

/** The script of a recorded turn: each response's blocks, or a step that fails as the call failed. */
export function scriptOf(turn: FixtureTurn): ScriptStep[] {
  return turn.responses.map((response): ScriptStep => {
    if ('blocks' in response) return response.blocks;
    return () => { throw new Error(response.error); };
  });
}

/** The recorded decisions, in order, up to the first approval nobody decided. */
export function decisionsOf(turn: FixtureTurn): PlannedDecision[] {
  const decisions: PlannedDecision[] = [];
  for (const approval of turn.approvals) {
    if (approval.decision === 'pending') break;
    decisions.push({ decision: approval.decision });
  }
  return decisions;
}

/** The injections of a recorded turn as the bot takes them. */
export function injectionsOf(turn: FixtureTurn): PlannedTurn['injections'] {
  return turn.injections.map((injection) => ({
    text: injection.text,
    channel: injection.channel,
    kind: injection.kind,
    ...(injection.from === undefined ? {} : { from: injection.from }),
    ...(injection.content === undefined ? {} : { content: injection.content }),
    ...(injection.action === undefined ? {} : { data: injection.action }),
  }));
}

const RAN: readonly ToolOutcome[] = ['ok', 'error', 'invalid_output'];

/** `trace` with the arguments of calls whose handler ran filled from what the stand-in saw, where the log has none. */
function withArgs(trace: TurnTrace, answered: readonly AnsweredCall[]): TurnTrace {
  const seen = [...answered];
  const toolCalls = trace.toolCalls.map((call) => {
    if (!RAN.includes(call.outcome)) return call;
    const index = seen.findIndex((answer) => answer.tool === call.tool);
    const answer = index === -1 ? undefined : seen.splice(index, 1)[0];
    const args = answer?.args;
    return call.args !== undefined || typeof args !== 'object' || args === null ? call : { ...call, args: args as Readonly<Record<string, unknown>> };
  });
  return { ...trace, toolCalls };
}

/** Tools the recording calls that the app no longer has. */
function missingTools(parts: BotParts, turns: readonly { turn: FixtureTurn; number: number }[]): Departure[] {
  const departures: Departure[] = [];
  for (const { turn, number } of turns) {
    const gone = [...new Set(turn.toolCalls.map((call) => call.tool))].filter((tool) => !parts.registry.has(tool));
    for (const tool of gone) departures.push({ turn: number, kind: 'missing_tool', message: `the recording calls ${tool}, which the app no longer has` });
  }
  return departures;
}

/** Replays one recorded turn in `conversation` and compares it with its recording. */
async function replayTurn(parts: BotParts, conversation: string, turn: FixtureTurn, number: number): Promise<Departure[]> {
  const tools = recordedTools(turn.toolCalls);
  const script = scriptOf(turn);
  const ran = await runPlannedTurn(parts, conversation, { injections: injectionsOf(turn), script, decisions: decisionsOf(turn), standIn: tools.standIn });
  const texts = new Map(ran.emitted.map((emitted) => [emitted.partId, emitted.part.text]));
  const trace = withArgs(traceOf(ran.entries, (partId) => texts.get(partId)), tools.answered);
  const departures = compareTurn(number, turn, trace);
  for (const problem of tools.problems) departures.push({ turn: number, kind: 'result', message: problem });
  if (ran.failure !== undefined) departures.push({ turn: number, kind: ran.failure.includes('model call') ? 'model_calls' : 'failure', message: ran.failure });
  if (ran.unusedSteps > 0) departures.push({ turn: number, kind: 'model_calls', message: `the replay made ${String(script.length - ran.unusedSteps)} model call(s), the recording ${String(script.length)}` });
  return departures;
}

/**
 * Replays `fixture` on `parts`' bot (its app's current actors and tools) in a conversation of its
 * own, and reports where it departs from the recording.
 *
 * @throws Error when the fixture is not a `switchboard-replay/1` fixture, or `options.turn` is not one of its turns.
 */
export async function replayOn(parts: BotParts, fixture: ReplayFixture, options: ReplayOptions = {}): Promise<ReplayReport> {
  if ((fixture.format as string) !== FIXTURE_FORMAT) throw new Error(`Not a replay fixture: format is "${fixture.format}", expected "${FIXTURE_FORMAT}".`);
  const numbered = fixture.turns.map((turn, index) => ({ turn, number: index + 1 }));
  const chosen = options.turn === undefined ? numbered : numbered.filter(({ number }) => number === options.turn);
  if (chosen.length === 0) throw new Error(`The conversation has no turn ${String(options.turn)} (it has ${String(fixture.turns.length)}).`);
  const departures = missingTools(parts, chosen);
  const conversation = `replay:${randomUUID()}`;
  for (const { turn, number } of chosen) departures.push(...(await replayTurn(parts, conversation, turn, number)));
  return { turns: chosen.length, departures, notes: fixture.notes ?? [] };
}
