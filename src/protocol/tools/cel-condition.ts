import { Environment } from '@marcbachmann/cel-js';
import { SwitchboardError } from '../errors.ts';
import type { ApprovalPolicyInput } from './tool-definition.ts';

/** Where in an expression something went wrong; `line` and `column` count from 1, `offset` from 0. */
export interface CelPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** The outcome of evaluating a {@link CelCondition}: a boolean, or why there is none. */
export type CelOutcome =
  | { readonly ok: true; readonly value: boolean }
  | { readonly ok: false; readonly reason: string; readonly cause?: unknown };

/** A CEL expression compiled once; evaluation never throws. */
export interface CelCondition {
  readonly expression: string;
  readonly evaluate: (input: ApprovalPolicyInput<unknown>) => CelOutcome;
}

/** The only variables a condition may read. Both are maps; their fields are dynamic. */
export const CEL_CONDITION_VARIABLES = ['args', 'ctx'] as const;

let environment: Environment | undefined;

/** The shared environment: built once (building one is costly), declares `args` and `ctx` only. */
function conditionEnvironment(): Environment {
  environment ??= new Environment().registerVariable('args', 'map').registerVariable('ctx', 'map');
  return environment;
}

interface CelLibraryError {
  readonly summary?: unknown;
  readonly code?: unknown;
  readonly range?: { readonly start?: unknown };
  readonly message?: unknown;
}

/** The 1-based line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): CelPosition {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  const last = lines[lines.length - 1] ?? '';
  return { offset, line: lines.length, column: last.length + 1 };
}

function describe(error: unknown, expression: string): { summary: string; celCode?: string; position?: CelPosition } {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as CelLibraryError;
  const summary =
    typeof fields.summary === 'string'
      ? fields.summary
      : typeof fields.message === 'string'
        ? fields.message
        : String(error);
  const start = fields.range?.start;
  return {
    summary,
    ...(typeof fields.code === 'string' ? { celCode: fields.code } : {}),
    ...(typeof start === 'number' ? { position: positionOf(expression, start) } : {}),
  };
}

function invalid(tool: string, expression: string, error: unknown, what: string): SwitchboardError {
  const { summary, celCode, position } = describe(error, expression);
  const where = position === undefined ? '' : ` at line ${position.line}, column ${position.column}`;
  return new SwitchboardError(
    'tool.invalid_policy',
    `Tool "${tool}": autoApproveIf expression ${what}${where}: ${summary}`,
    {
      details: {
        tool,
        expression,
        reason: summary,
        ...(celCode === undefined ? {} : { celCode }),
        ...(position ?? {}),
      },
      cause: error,
    },
  );
}

/**
 * Parses and type-checks a CEL condition for tool `tool`.
 *
 * Registration-time checks: syntax, variables other than `args` and `ctx`, unknown functions, type
 * conflicts, and a result type that can never be a boolean (for example `1 + 1`). A result typed
 * `dyn` (such as `args.flag`) is checked again at evaluation.
 *
 * @throws SwitchboardError `tool.invalid_policy`, with `line`, `column` and `offset` in `details`
 *   when the library reports a position.
 */
export function compileCelCondition(tool: string, expression: string): CelCondition {
  if (expression.trim().length === 0) {
    throw new SwitchboardError('tool.invalid_policy', `Tool "${tool}": autoApproveIf expression is empty.`, {
      details: { tool, expression },
    });
  }
  const env = conditionEnvironment();
  let program: ReturnType<Environment['parse']>;
  try {
    program = env.parse(expression);
  } catch (error) {
    throw invalid(tool, expression, error, 'does not parse');
  }
  const checked = program.check();
  if (!checked.valid) throw invalid(tool, expression, checked.error, 'does not type-check');
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    throw new SwitchboardError(
      'tool.invalid_policy',
      `Tool "${tool}": autoApproveIf expression must evaluate to a bool, not ${checked.type ?? 'an unknown type'}.`,
      { details: { tool, expression, resultType: checked.type } },
    );
  }
  return Object.freeze({
    expression,
    evaluate: (input: ApprovalPolicyInput<unknown>): CelOutcome => {
      let value: unknown;
      try {
        value = program({ args: input.args, ctx: input.ctx }) as unknown;
      } catch (error) {
        return { ok: false, reason: `evaluation failed: ${describe(error, expression).summary}`, cause: error };
      }
      if (typeof value !== 'boolean') {
        return { ok: false, reason: `result is not a bool (got ${typeof value})` };
      }
      return { ok: true, value };
    },
  });
}
