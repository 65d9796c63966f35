/**
 * An eval case as turns to run: the fixture's recorded turns, or the case's scripted messages;
 * the scripted model's steps when the case is `model: scripted`; tools answered from the
 * recording or the case's `results`, except the `live` ones.
 */
import { resolve } from 'node:path';
import { readFixture } from '../replay/fixture-file.ts';
import { recordedTools, type RecordedTools } from '../replay/recorded-tools.ts';
import { decisionsOf, injectionsOf, scriptOf } from '../replay/replay-fixture.ts';
import type { PlannedTurn } from '../replay/run-turn.ts';
import { answer, callTool, respond, type ModelReply, type ScriptStep } from '../testing/scripted-model.ts';
import type { ToolStandIn } from '../testing/stand-in-registry.ts';
import type { TestSender } from '../testing/test-bot-types.ts';
import type { SuiteCase, SuiteStep } from './suite-types.ts';

/** Most approvals one scripted turn decides with its `approve`. */
const MAX_APPROVALS = 10;

function isStepList(step: SuiteStep): step is readonly SuiteStep[] {
  return Array.isArray(step);
}

/** The blocks of one suite step. */
function replyOf(step: SuiteStep): ModelReply {
  if (isStepList(step)) return step.flatMap((inner) => replyOf(inner));
  if ('call' in step) return callTool(step.call, step.input ?? {});
  if ('answer' in step) return answer(step.answer);
  const { parts, turnState, passTo, note } = step.respond;
  return respond(parts, turnState, { ...(passTo === undefined ? {} : { passTo }), ...(note === undefined ? {} : { note }) });
}

/** The case's stand-in: live tools run, `results` answer, then the recording (when there is one). */
function standInOf(entry: SuiteCase, recorded: RecordedTools | undefined): ToolStandIn {
  const live = new Set(entry.live ?? []);
  const results = entry.results ?? {};
  return (tool, args, context) => {
    if (live.has(tool)) return undefined;
    if (Object.hasOwn(results, tool)) return Promise.resolve(results[tool]);
    return recorded?.standIn(tool, args, context) ?? Promise.reject(new Error(`No recorded result for ${tool}: mark it live in the eval case, or give its result under results.`));
  };
}

/** Who writes a scripted case's messages: a person of the app by id, else an address. */
export function senderFor(from: string | undefined, people: readonly string[]): string | TestSender | undefined {
  if (from === undefined || people.includes(from)) return from;
  return { address: from };
}

/**
 * The turns of `entry`, its fixture read relative to `suiteDir`; `people` are the app's person ids.
 *
 * @throws Error when the fixture cannot be read.
 */
export async function planCase(entry: SuiteCase, suiteDir: string, people: readonly string[]): Promise<PlannedTurn[]> {
  const scripted = entry.model === 'scripted';
  if (entry.fixture !== undefined) {
    const fixture = await readFixture(resolve(suiteDir, entry.fixture));
    return fixture.turns.map((turn) => ({
      injections: injectionsOf(turn),
      ...(scripted ? { script: scriptOf(turn) } : {}),
      decisions: decisionsOf(turn),
      standIn: standInOf(entry, recordedTools(turn.toolCalls)),
    }));
  }
  const from = senderFor(entry.from, people);
  return (entry.turns ?? []).map((turn) => ({
    injections: [{ text: turn.message, channel: entry.channel ?? 'web', ...(from === undefined ? {} : { from }) }],
    ...(scripted ? { script: (turn.script ?? []).map((step): ScriptStep => replyOf(step)) } : {}),
    decisions: turn.approve === undefined ? [] : Array.from({ length: MAX_APPROVALS }, () => ({ decision: turn.approve ?? 'denied' })),
    standIn: standInOf(entry, undefined),
  }));
}
