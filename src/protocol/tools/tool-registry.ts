import { SwitchboardError } from '../errors.ts';
import { compileApprovalPolicy, type ApprovalRequirement, type CompiledApprovalPolicy } from './approval-policy.ts';
import { SchemaCompiler, type CompiledSchema, type SchemaCompilerConfig } from './schema-compiler.ts';
import type {
  ModelTool,
  RegisteredTool,
  ToolArgs,
  ToolCheckResult,
  ToolDefinition,
  ToolHandlerContext,
  ToolInputSchema,
  ToolIssue,
} from './tool-definition.ts';
import { normalizeToolDefinition, RESERVED_TOOL_NAMES } from './tool-definition-rules.ts';

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryConfig extends SchemaCompilerConfig {
  /**
   * How long an approval policy function may run before it fails closed (approval required), in
   * milliseconds. `Infinity` disables the limit. Default 5000.
   */
  readonly policyTimeoutMs?: number;
}

interface Entry {
  readonly tool: RegisteredTool;
  readonly input: CompiledSchema;
  readonly output?: CompiledSchema;
  readonly approval: CompiledApprovalPolicy;
}

function formatIssues(issues: readonly ToolIssue[]): string {
  return issues.map((issue) => `${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`).join('; ');
}

function quoteList(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}

function knownList(names: readonly string[]): string {
  return names.length === 0 ? 'No tools are registered.' : `Known tools: ${names.join(', ')}.`;
}

/**
 * The one registry of consumer tools: every tool is registered once at start-up, actors pick from
 * it by name. Registration enforces the definition rules, compiles both JSON Schemas (Ajv) and the
 * approval policy (CEL) once; later calls only run the compiled forms. Create one with
 * {@link createToolRegistry}.
 */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #schemas: SchemaCompiler;
  readonly #policyTimeoutMs: number | undefined;

  constructor(config: ToolRegistryConfig = {}) {
    this.#schemas = new SchemaCompiler(config);
    this.#policyTimeoutMs = config.policyTimeoutMs;
  }

  /**
   * Registers a tool. Plain objects work as well as {@link defineTool} results.
   *
   * @returns the frozen registered tool, defaults filled (`routing: 'routed'`, `peerExposed: false`,
   *   `tags: []`, `terminal: false`, `requiresApproval: false`, `readsUntrusted: false`,
   *   `untrustedTurns: 'approve'`) and schemas replaced by frozen copies.
   * @throws SwitchboardError `tool.invalid_definition` (a broken rule; `details.rule` names it),
   *   `tool.duplicate`, `tool.invalid_schema` (a schema Ajv cannot compile) or `tool.invalid_policy`
   *   (a bad `requiresApproval`, such as a CEL syntax error, reported with its line and column).
   */
  register<TArgs = ToolArgs, TResult = unknown>(definition: ToolDefinition<TArgs, TResult>): RegisteredTool<TArgs, TResult> {
    const normalized = normalizeToolDefinition(definition);
    const { name } = normalized;
    if (this.#entries.has(name)) {
      throw new SwitchboardError('tool.duplicate', `Tool "${name}" is already registered.`, { details: { tool: name } });
    }
    const input = this.#schemas.compile(normalized.inputSchema, { tool: name, field: 'inputSchema' });
    const output =
      normalized.outputSchema === undefined
        ? undefined
        : this.#schemas.compile(normalized.outputSchema, { tool: name, field: 'outputSchema' });
    const approval = compileApprovalPolicy(
      name,
      normalized.requiresApproval,
      this.#policyTimeoutMs === undefined ? {} : { timeoutMs: this.#policyTimeoutMs },
    );
    const tool: RegisteredTool = Object.freeze({
      ...normalized,
      inputSchema: input.schema as ToolInputSchema,
      ...(output === undefined ? {} : { outputSchema: output.schema }),
    });
    this.#entries.set(name, { tool, input, ...(output === undefined ? {} : { output }), approval });
    return tool as unknown as RegisteredTool<TArgs, TResult>;
  }

  /** The tool called `name`, or `undefined`. */
  get(name: string): RegisteredTool | undefined {
    return this.#entries.get(name)?.tool;
  }

  /** Whether a tool called `name` is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /**
   * The tool called `name`.
   * @throws SwitchboardError `tool.unknown`, naming `name` and listing the known tools.
   */
  require(name: string): RegisteredTool {
    return this.#entry(name).tool;
  }

  /** Every registered name, in registration order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every registered tool, in registration order. */
  all(): RegisteredTool[] {
    return [...this.#entries.values()].map((entry) => entry.tool);
  }

  /**
   * The tools an actor's config lists, in the listed order (a name listed twice appears once).
   * Unknown names are never skipped silently.
   *
   * @throws SwitchboardError `tool.unknown` naming every unknown tool and listing the known ones;
   *   `details` holds `{ actorName, unknown, known }`.
   */
  resolveForActor(actorName: string, toolNames: readonly string[]): RegisteredTool[] {
    const wanted = [...new Set(toolNames)];
    const unknown = wanted.filter((name) => !this.#entries.has(name));
    if (unknown.length > 0) {
      const known = this.names();
      const hint = unknown.some((name) => RESERVED_TOOL_NAMES.includes(name.toLowerCase()))
        ? ' respond() is given to every actor automatically; do not list it.'
        : '';
      throw new SwitchboardError(
        'tool.unknown',
        `Actor "${actorName}" lists unknown tool${unknown.length === 1 ? '' : 's'} ${quoteList(unknown)}. ${knownList(known)}${hint}`,
        { details: { actorName, unknown, known } },
      );
    }
    return wanted.map((name) => this.#entry(name).tool);
  }

  /**
   * Checks model-supplied arguments against the tool's input schema. Never throws: a failure is a
   * value to send back to the model. The arguments are not changed (no defaults, no coercion).
   */
  validateArguments(name: string, args: unknown): ToolCheckResult<ToolArgs> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return this.#unknownResult(name);
    const issues = entry.input.check(args);
    if (issues.length === 0) return { ok: true, value: args as ToolArgs };
    return {
      ok: false,
      code: 'tool.invalid_arguments',
      message: `Arguments for tool "${name}" do not match its input schema: ${formatIssues(issues)}.`,
      issues,
    };
  }

  /**
   * Checks a handler's result against the tool's output schema; without an output schema every
   * value passes. Never throws.
   */
  validateOutput(name: string, output: unknown): ToolCheckResult<unknown> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return this.#unknownResult(name);
    const issues = entry.output?.check(output) ?? [];
    if (issues.length === 0) return { ok: true, value: output };
    return {
      ok: false,
      code: 'tool.invalid_output',
      message: `Output of tool "${name}" does not match its output schema: ${formatIssues(issues)}.`,
      issues,
    };
  }

  /**
   * Whether this call needs human approval before the handler runs. Evaluated against
   * `{ args, ctx }` only. Never rejects: a failing policy answers `required: true` with `error` set.
   *
   * @throws SwitchboardError `tool.unknown` when `name` is not registered.
   */
  evaluateApproval(name: string, args: ToolArgs, ctx: ToolHandlerContext): Promise<ApprovalRequirement> {
    return this.#entry(name).approval.evaluate({ args, ctx });
  }

  /**
   * The Anthropic Messages API shape of a tool, `{ name, description, input_schema }`, with a fresh
   * mutable copy of the schema.
   * @throws SwitchboardError `tool.unknown` when given a name that is not registered.
   */
  toModelTool(tool: RegisteredTool | string): ModelTool {
    const found = typeof tool === 'string' ? this.require(tool) : tool;
    return {
      name: found.name,
      description: found.description,
      input_schema: structuredClone(found.inputSchema),
    };
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined) {
      const known = this.names();
      throw new SwitchboardError('tool.unknown', `Unknown tool "${name}". ${knownList(known)}`, {
        details: { tool: name, known },
      });
    }
    return entry;
  }

  #unknownResult(name: string): ToolCheckResult<never> {
    const known = this.names();
    return {
      ok: false,
      code: 'tool.unknown',
      message: `There is no tool called "${name}". ${knownList(known)}`,
      issues: [{ path: '', message: `unknown tool "${name}"` }],
    };
  }
}

/**
 * Creates an empty {@link ToolRegistry}.
 *
 * @example
 * const tools = createToolRegistry();
 * tools.register({
 *   name: 'missive_list',
 *   description: 'List missives for a thread.',
 *   scope: 'generalist',
 *   inputSchema: { type: 'object', properties: { threadId: { type: 'string' } }, required: ['threadId'] },
 *   handler: async ({ threadId }) => listMissives(threadId),
 * });
 */
export function createToolRegistry(config: ToolRegistryConfig = {}): ToolRegistry {
  return new ToolRegistry(config);
}
