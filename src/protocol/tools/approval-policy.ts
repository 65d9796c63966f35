import { SwitchboardError } from '../errors.ts';
import { compileCelCondition, type CelCondition } from './cel-condition.ts';
import type { ApprovalPolicyFunction, ApprovalPolicyInput } from './tool-definition.ts';

/** Where an {@link ApprovalRequirement} came from. */
export type ApprovalSource = 'static' | 'expression' | 'function';

/** Whether one call needs human approval before its handler runs, and why. */
export interface ApprovalRequirement {
  /** `true`: suspend and ask; `false`: run the handler now. */
  readonly required: boolean;
  /** One line for the audit log. */
  readonly reason: string;
  /** `static` for `true`/`false`, `expression` for `autoApproveIf`, `function` for a policy function. */
  readonly source: ApprovalSource;
  /**
   * Set when the policy could not decide (threw, rejected, timed out, answered the wrong shape,
   * the expression failed or gave a non-bool). `required` is then always `true` (fail closed).
   * Code `tool.policy_failed`.
   */
  readonly error?: SwitchboardError;
}

/** A policy compiled at registration. `evaluate` never rejects. */
export interface CompiledApprovalPolicy {
  readonly evaluate: (input: ApprovalPolicyInput<unknown>) => Promise<ApprovalRequirement>;
}

/** Options of {@link compileApprovalPolicy}. */
export interface ApprovalPolicyOptions {
  /** How long a policy function may take before it fails closed, in milliseconds. Default 5000. */
  readonly timeoutMs?: number;
}

/** Default of {@link ApprovalPolicyOptions.timeoutMs}, in milliseconds. */
export const DEFAULT_POLICY_TIMEOUT_MS = 5_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failClosed(tool: string, source: ApprovalSource, reason: string, cause?: unknown): ApprovalRequirement {
  const error = new SwitchboardError('tool.policy_failed', `Tool "${tool}": approval policy failed: ${reason}`, {
    details: { tool, source, reason },
    ...(cause === undefined ? {} : { cause }),
  });
  return { required: true, reason: `approval policy failed, approval required (fail closed): ${reason}`, source, error };
}

function fromVerdict(tool: string, verdict: unknown): ApprovalRequirement {
  if (typeof verdict === 'boolean') {
    return { required: verdict, reason: `policy function answered ${verdict ? 'required' : 'not required'}`, source: 'function' };
  }
  if (isRecord(verdict) && typeof verdict['required'] === 'boolean') {
    const reason = verdict['reason'];
    if (reason === undefined || typeof reason === 'string') {
      const required = verdict['required'];
      return {
        required,
        reason: reason ?? `policy function answered ${required ? 'required' : 'not required'}`,
        source: 'function',
      };
    }
  }
  return failClosed(tool, 'function', 'policy function answered neither a boolean nor { required: boolean, reason?: string }');
}

const TIMED_OUT = Symbol('timed out');

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  if (!Number.isFinite(timeoutMs)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => { resolve(TIMED_OUT); }, timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function functionPolicy(tool: string, policy: ApprovalPolicyFunction<unknown>, timeoutMs: number): CompiledApprovalPolicy {
  return {
    evaluate: async (input) => {
      let args: unknown;
      try {
        // The policy gets its own copy: it must not be able to change what the handler receives.
        args = structuredClone(input.args);
      } catch (error) {
        return failClosed(tool, 'function', 'arguments are not plain JSON data', error);
      }
      try {
        const answer = await withTimeout(Promise.resolve(policy({ args, ctx: input.ctx })), timeoutMs);
        if (answer === TIMED_OUT) return failClosed(tool, 'function', `policy function took longer than ${timeoutMs} ms`);
        return fromVerdict(tool, answer);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return failClosed(tool, 'function', `policy function threw: ${message}`, error);
      }
    },
  };
}

function expressionPolicy(tool: string, condition: CelCondition): CompiledApprovalPolicy {
  return {
    evaluate: (input) => {
      const outcome = condition.evaluate(input);
      if (!outcome.ok) return Promise.resolve(failClosed(tool, 'expression', `autoApproveIf ${outcome.reason}`, outcome.cause));
      return Promise.resolve(
        outcome.value
          ? { required: false, reason: `auto-approved: autoApproveIf matched (${condition.expression})`, source: 'expression' }
          : { required: true, reason: `autoApproveIf did not match (${condition.expression})`, source: 'expression' },
      );
    },
  };
}

function staticPolicy(required: boolean): CompiledApprovalPolicy {
  const requirement: ApprovalRequirement = Object.freeze({
    required,
    reason: `requiresApproval is ${required}`,
    source: 'static',
  });
  return { evaluate: () => Promise.resolve(requirement) };
}

/**
 * Compiles a tool's `requiresApproval` once, at registration: `undefined`/`false` (never),
 * `true` (always), `{ autoApproveIf: '<CEL>' }` (parsed and type-checked now) or a policy function.
 *
 * @throws SwitchboardError `tool.invalid_policy` when the value has another shape or the
 *   expression does not compile (the message and `details` carry the line and column).
 */
export function compileApprovalPolicy(tool: string, policy: unknown, options: ApprovalPolicyOptions = {}): CompiledApprovalPolicy {
  if (policy === undefined || typeof policy === 'boolean') return staticPolicy(policy ?? false);
  if (typeof policy === 'function') {
    return functionPolicy(
      tool,
      policy as ApprovalPolicyFunction<unknown>,
      options.timeoutMs ?? DEFAULT_POLICY_TIMEOUT_MS,
    );
  }
  if (isRecord(policy)) {
    const extra = Object.keys(policy).filter((key) => key !== 'autoApproveIf');
    const expression = policy['autoApproveIf'];
    if (extra.length === 0 && typeof expression === 'string') {
      return expressionPolicy(tool, compileCelCondition(tool, expression));
    }
  }
  throw new SwitchboardError(
    'tool.invalid_policy',
    `Tool "${tool}": requiresApproval must be false, true, { autoApproveIf: "<CEL expression>" } or a policy function.`,
    { details: { tool, received: describeValue(policy) } },
  );
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isRecord(value)) return `object with keys ${JSON.stringify(Object.keys(value))}`;
  return typeof value;
}
