/**
 * Tools answered from a recording: each call the replay (or an eval) makes gets the result the
 * recorded call of the same tool got, and no handler runs.
 */
import type { ToolStandIn } from '../testing/stand-in-registry.ts';
import type { FixtureToolCall, ToolOutcome } from './fixture-types.ts';
import { sameUnlessMasked } from './masked-args.ts';

/** A tool call answered by {@link recordedTools}. */
export interface AnsweredCall {
  readonly tool: string;
  readonly args: unknown;
}

/** The stand-in, and what it met. */
export interface RecordedTools {
  readonly standIn: ToolStandIn;
  /** The calls it answered, in order, with the arguments they came with. */
  readonly answered: readonly AnsweredCall[];
  /** Calls it had no recorded result for, and recorded results it could not give back, in words. */
  readonly problems: readonly string[];
}

/** The outcomes of calls whose handler ran, and so have something to give back. */
const ANSWERED: readonly ToolOutcome[] = ['ok', 'error', 'invalid_output'];

/** A recorded result as the handler returned it: JSON parsed, text as it is. */
function outputOf(result: string): unknown {
  try {
    return JSON.parse(result) as unknown;
  } catch {
    return result;
  }
}

/**
 * A stand-in answering each call with the first unused recorded call of the same tool (one with
 * the same arguments, masked fields aside, first): its result, or its error thrown. A call with no
 * recorded answer fails with an error saying so. Tools in `live` run their real handlers.
 */
export function recordedTools(calls: readonly FixtureToolCall[], live: ReadonlySet<string> = new Set()): RecordedTools {
  const unused = calls.filter((call) => ANSWERED.includes(call.outcome));
  const answered: AnsweredCall[] = [];
  const problems: string[] = [];
  const standIn: ToolStandIn = (tool, args) => {
    if (live.has(tool)) return undefined;
    answered.push({ tool, args });
    const sameTool = unused.filter((call) => call.tool === tool);
    const recorded = sameTool.find((call) => call.args !== undefined && sameUnlessMasked(call.args, args)) ?? sameTool[0];
    if (recorded === undefined) {
      problems.push(`${tool} was called with ${JSON.stringify(args)}, and the recording has no result for it`);
      return Promise.reject(new Error(`No recorded result for ${tool} (replay).`));
    }
    unused.splice(unused.indexOf(recorded), 1);
    if (recorded.outcome === 'error') return Promise.reject(new Error(recorded.error ?? 'The recorded call failed.'));
    if (recorded.result === undefined) {
      problems.push(`the recorded result of ${tool} is not in the recording`);
      return Promise.reject(new Error(`The recorded result of ${tool} was not kept.`));
    }
    if (recorded.result.endsWith('…')) problems.push(`the recorded result of ${tool} was cut at 16 KB; the replay gives it back cut`);
    return Promise.resolve(outputOf(recorded.result));
  };
  return { standIn, answered, problems };
}
