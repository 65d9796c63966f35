/** Checking an eval case's expectations against what its turns did. */
import type { Expectation, TextExpectation } from './suite-types.ts';

/** What a case's turns did, all turns together. */
export interface CaseOutcome {
  /** Every app tool call, in order. */
  readonly toolCalls: readonly { readonly name: string; readonly args: unknown; readonly outcome: string }[];
  /** The tools whose calls asked for approval, in order. */
  readonly approvals: readonly string[];
  /** Every part emitted, in order. */
  readonly parts: readonly { readonly partType: string; readonly text?: string }[];
  /** The state the last turn ended in. */
  readonly turnState?: string;
}

/** One row of the table: the expectation in words, whether it held, and what was seen. */
export interface ExpectationResult {
  readonly expectation: string;
  readonly pass: boolean;
  readonly detail: string;
}

const PATTERN = /^\/(.+)\/([dgimsuvy]*)$/s;

/**
 * Whether `actual` matches `expected`: objects by the keys `expected` names (others ignored),
 * arrays element by element, a string written `/pattern/flags` as a regular expression (against
 * a string, or the JSON of anything else), anything else by equality.
 */
export function matchesPartially(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'string') {
    const pattern = PATTERN.exec(expected);
    if (pattern !== null) return new RegExp(pattern[1] ?? '', pattern[2]).test(typeof actual === 'string' ? actual : JSON.stringify(actual));
    return expected === actual;
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => matchesPartially(item, actual[index]));
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const fields = actual as Readonly<Record<string, unknown>>;
    return Object.entries(expected).every(([key, value]) => matchesPartially(value, fields[key]));
  }
  return expected === actual;
}

function calls(outcome: CaseOutcome): string {
  return outcome.toolCalls.length === 0 ? 'no tool call' : outcome.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)}) ${call.outcome}`).join('; ');
}

function textOf(expectation: string | TextExpectation): TextExpectation {
  return typeof expectation === 'string' ? { text: expectation } : expectation;
}

function partTypes(outcome: CaseOutcome): string {
  return outcome.parts.length === 0 ? 'no part' : `parts: ${outcome.parts.map((part) => part.partType).join(', ')}`;
}

/** Checks text expectations: whether some part (of the type) holds the text. */
function textCheck(expectation: string | TextExpectation, outcome: CaseOutcome, wanted: boolean): ExpectationResult {
  const { text, partType } = textOf(expectation);
  const texts = outcome.parts.filter((part) => partType === undefined || part.partType === partType).flatMap((part) => (part.text === undefined ? [] : [part.text]));
  const found = texts.some((known) => known.includes(text));
  const where = partType === undefined ? '' : ` (${partType})`;
  const shown = texts.join(' | ').slice(0, 160);
  return { expectation: `text${wanted ? '' : ' does not'} contain${wanted ? 's' : ''} "${text}"${where}`, pass: found === wanted, detail: shown === '' ? 'no text' : shown };
}

/** Checks one expectation against `outcome`. */
export function checkExpectation(expectation: Expectation, outcome: CaseOutcome): ExpectationResult {
  if (expectation.toolCalled !== undefined) {
    const wanted = typeof expectation.toolCalled === 'string' ? { name: expectation.toolCalled } : expectation.toolCalled;
    const pass = outcome.toolCalls.some((call) => call.name === wanted.name && (wanted.args === undefined || matchesPartially(wanted.args, call.args)));
    return { expectation: `calls ${wanted.name}${wanted.args === undefined ? '' : ` with ${JSON.stringify(wanted.args)}`}`, pass, detail: calls(outcome) };
  }
  if (expectation.toolNotCalled !== undefined) {
    const name = expectation.toolNotCalled;
    return { expectation: `does not call ${name}`, pass: !outcome.toolCalls.some((call) => call.name === name), detail: calls(outcome) };
  }
  const approvals = outcome.approvals.length === 0 ? 'no approval asked' : `approvals asked for: ${outcome.approvals.join(', ')}`;
  if (expectation.approvalRequested !== undefined) {
    const tool = expectation.approvalRequested;
    return { expectation: `asks approval${tool === true ? '' : ` for ${tool}`}`, pass: tool === true ? outcome.approvals.length > 0 : outcome.approvals.includes(tool), detail: approvals };
  }
  if (expectation.noApproval !== undefined) return { expectation: 'asks no approval', pass: outcome.approvals.length === 0, detail: approvals };
  if (expectation.part !== undefined) {
    const type = expectation.part;
    return { expectation: `emits a part of type ${type}`, pass: outcome.parts.some((part) => part.partType === type), detail: partTypes(outcome) };
  }
  if (expectation.noPart !== undefined) {
    const type = expectation.noPart;
    return { expectation: `emits no part of type ${type}`, pass: !outcome.parts.some((part) => part.partType === type), detail: partTypes(outcome) };
  }
  if (expectation.textContains !== undefined) return textCheck(expectation.textContains, outcome, true);
  if (expectation.textNotContains !== undefined) return textCheck(expectation.textNotContains, outcome, false);
  const state = expectation.turnState ?? '';
  return { expectation: `ends ${state}`, pass: outcome.turnState === state, detail: `ended ${outcome.turnState ?? 'without a turn'}` };
}
