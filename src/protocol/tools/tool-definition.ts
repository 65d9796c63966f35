/**
 * The shapes of the tool registry: what a consumer registers ({@link ToolDefinition}), what the
 * registry keeps ({@link RegisteredTool}), and what a handler receives ({@link ToolHandlerContext}).
 *
 * A definition is a union over two axes: `scope` (who owns the tool) and `routing` (how a call is
 * dispatched). Three pairs are legal; `generalist` + `bypass` is not expressible here and is
 * rejected at registration for plain JavaScript objects.
 */
import type { ApprovalResponse, ShapeIssue } from '../parts/approval-parts.ts';

/**
 * Who owns a tool's invocation: the application as a whole (`generalist`, shared domain data) or
 * one actor (`specialist`, private work).
 */
export type ToolScope = 'generalist' | 'specialist';

/**
 * How a call is dispatched: through the framework's router (`routed`: observable, gateable,
 * audited) or inline in the actor (`bypass`: only for specialist tools, with a stated reason).
 */
export type ToolRouting = 'routed' | 'bypass';

/**
 * The human decision on an approval request, as carried by an `approval-response` part. Present in
 * {@link ToolHandlerContext.approvalDecision} for calls resumed after approval.
 */
export type ApprovalDecision = ApprovalResponse;

/**
 * What a handler (and an approval policy, as `ctx`) knows about the call. Built by
 * {@link createToolHandlerContext} and frozen; identity fields are absent when unknown.
 */
export interface ToolHandlerContext {
  /** The actor that called the tool. */
  readonly actorName: string;
  /** The current session. */
  readonly sessionId: string;
  /** The current turn (one actor invocation). */
  readonly turnId: string;
  /**
   * The call's position in the turn, `<turnId>.<step>.<blockIndex>`: the same when a turn retried
   * after a crash runs the same model response's call again, new for a call at a later step (a
   * deliberate retry). Set while the actor loop runs the call; absent elsewhere.
   */
  readonly callId?: string;
  /** The channel-level user id, when known. */
  readonly userId?: string;
  /** The resolved person behind the user, when known. */
  readonly personId?: string;
  /** The tenant the session belongs to, when known. */
  readonly tenantId?: string;
  /** The decision that released this call; set only for calls resumed after approval. */
  readonly approvalDecision?: ApprovalDecision;
  /**
   * Extra facts the application pins on the call for policies and handlers (for example
   * `{ user: { tier: 'trusted' } }`, read in CEL as `ctx.attributes.user.tier`). Never filled from
   * model output.
   */
  readonly attributes?: Readonly<Record<string, unknown>>;
  /**
   * Set while the actor loop runs the call: lets a tool that hands the work to a peer agent say so
   * (see {@link ToolDelegation}). Absent elsewhere (approval policies, calls resumed after approval),
   * so a tool must treat it as optional. Not enumerable: it never reaches a CEL policy or a log.
   */
  readonly delegation?: ToolDelegation;
}

/**
 * What a tool that delegates to a peer agent may tell the turn while it runs. Each method delivers
 * at once and never throws for the tool's sake beyond the delivery's own failure.
 */
export interface ToolDelegation {
  /**
   * The turn now waits on a peer (turn state `delegated`, logged and delivered), and the turn's
   * deadline moves out by `budgetMs` (ms), so the peer's budget is not taken from the actor's own:
   * the new deadline is `max(deadline, now) + budgetMs`.
   */
  begin(budgetMs: number): Promise<void>;
  /**
   * Shows `text` as a `progress` part (streaming channels show it at once; buffered ones drop it).
   * A text equal to the call's previous one is dropped, and a call shows at most 20 progress parts
   * (later ones are dropped), since each is kept in the turn's record.
   */
  progress(text: string): Promise<void>;
}

/** Arguments a tool receives: the JSON object the model produced, after schema validation. */
export type ToolArgs = Readonly<Record<string, unknown>>;

/**
 * Executes a tool. May be sync or async; a throw is the tool's failure, reported to the model by
 * the actor loop.
 */
export type ToolHandler<TArgs = ToolArgs, TResult = unknown> = (
  args: TArgs,
  ctx: ToolHandlerContext,
) => TResult | Promise<TResult>;

/** What an approval policy is evaluated against: the call's arguments and its handler context. */
export interface ApprovalPolicyInput<TArgs = ToolArgs> {
  readonly args: TArgs;
  readonly ctx: ToolHandlerContext;
}

/**
 * What a policy function answers: `true` when approval is required, `false` when the call may run,
 * or the same with a reason for the audit log.
 */
export type ApprovalPolicyVerdict = boolean | { readonly required: boolean; readonly reason?: string };

/**
 * A consumer policy deciding whether a call needs human approval. Sync or async. A throw, a
 * rejection, a timeout or an answer of the wrong shape fails closed (approval required).
 */
export type ApprovalPolicyFunction<TArgs = ToolArgs> = (
  input: ApprovalPolicyInput<TArgs>,
) => ApprovalPolicyVerdict | Promise<ApprovalPolicyVerdict>;

/**
 * An auto-approval rule: a CEL expression over `args` and `ctx` only. When it evaluates to `true`
 * the call runs without approval; `false`, a non-boolean result or an evaluation error require
 * approval. JSON numbers are CEL doubles: comparisons with int literals work
 * (`args.totalCost < 50`), arithmetic with ints needs `2.0` or `int(args.qty)`.
 *
 * @example { autoApproveIf: "args.totalCost < 50 && ctx.attributes.user.tier == 'trusted'" }
 */
export interface AutoApproveRule {
  readonly autoApproveIf: string;
}

/**
 * Whether calls need human approval before the handler runs: never (`false`, the default),
 * always (`true`), unless a CEL rule matches ({@link AutoApproveRule}), or as a function decides.
 */
export type ApprovalPolicy<TArgs = ToolArgs> = boolean | AutoApproveRule | ApprovalPolicyFunction<TArgs>;

/** A JSON Schema (draft-07, as Ajv compiles it): an object or a boolean. */
export type JsonSchema = boolean | Readonly<Record<string, unknown>>;

/** The input schema of a tool: a JSON Schema whose top level is `type: 'object'`. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly [keyword: string]: unknown;
}

/** Why a bypass tool skips the router; read at audit time. */
export interface BypassRouting {
  /** The articulated reason (latency, coupling, framework-internal). Non-empty. */
  readonly reason: string;
}

/** Fields every tool definition has, whatever its scope and routing. */
export interface ToolDefinitionBase<TArgs = ToolArgs, TResult = unknown> {
  /** Unique id, `^[a-zA-Z0-9_-]{1,64}$`; `respond` is reserved. Actor configs list tools by it. */
  readonly name: string;
  /** What the tool does, for the model's tool list. Non-empty. */
  readonly description: string;
  /** JSON Schema of the arguments; compiled once at registration, checked before every call. */
  readonly inputSchema: ToolInputSchema;
  /** JSON Schema of the result, for peer contracts. Unset: results are not checked. */
  readonly outputSchema?: JsonSchema;
  /** Runs the tool. */
  readonly handler: ToolHandler<TArgs, TResult>;
  /** Whether calls need approval. Default `false`. */
  readonly requiresApproval?: ApprovalPolicy<TArgs>;
  /** Free-form tags, captured for future policy filtering. Default `[]`. */
  readonly tags?: readonly string[];
  /**
   * When `true`, a successful call's output becomes the actor's response and the turn ends
   * (see terminal tools). Default `false`.
   */
  readonly terminal?: boolean;
  /**
   * `true` for a tool whose results carry content from outside the operator's control (a fetched
   * page, a mailbox, another agent's answer): each result reaches the model marked as outside
   * content, and the turn counts as one that read outside content (see {@link UntrustedTurns}).
   * Default `false`.
   */
  readonly readsUntrusted?: boolean;
  /**
   * What the tool's approval policy does in a turn that read outside content (an untrusted
   * message, or a result of a `readsUntrusted` tool): `'approve'` asks a person even when the
   * policy would let the call run; `'policy'` leaves it to the policy. Only matters when
   * `requiresApproval` is not `false`. Default `'approve'`.
   */
  readonly untrustedTurns?: UntrustedTurns;
  /**
   * Argument fields that hold personal data, as `/`-separated paths from the arguments' top
   * (`email`, `passengers/*\/fullName`; `*` is any member or item, and a name met on an array
   * applies to each item). The service masks them (`•••`) in the `tool_call` log entry and in
   * captured model calls, and in JSON results wherever the same path appears. Default `[]`.
   */
  readonly personalData?: readonly string[];
}

/**
 * How a tool with an approval policy is gated in a turn that read outside content: `'approve'`
 * (always ask a person) or `'policy'` (the policy decides as in any turn).
 */
export type UntrustedTurns = 'approve' | 'policy';

/** A shared-domain tool. Always routed; may be exposed to A2A peers. */
export interface GeneralistToolDefinition<TArgs = ToolArgs, TResult = unknown>
  extends ToolDefinitionBase<TArgs, TResult> {
  readonly scope: 'generalist';
  /** Only `routed` is legal. Default `'routed'`. */
  readonly routing?: 'routed';
  /** Whether A2A peers may call the tool. Default `false`. */
  readonly peerExposed?: boolean;
}

/** An actor-private tool dispatched through the router (events scoped to the calling actor). */
export interface RoutedSpecialistToolDefinition<TArgs = ToolArgs, TResult = unknown>
  extends ToolDefinitionBase<TArgs, TResult> {
  readonly scope: 'specialist';
  /** Default `'routed'`. */
  readonly routing?: 'routed';
  /** Why this work is private to one actor and not shared domain. Non-empty. */
  readonly justification: string;
  /** Specialist tools are never exposed to peers; only `false` is accepted. */
  readonly peerExposed?: false;
}

/** An actor-private tool whose handler runs inline, skipping the router. */
export interface BypassSpecialistToolDefinition<TArgs = ToolArgs, TResult = unknown>
  extends ToolDefinitionBase<TArgs, TResult> {
  readonly scope: 'specialist';
  readonly routing: 'bypass';
  /** Why this work is private to one actor and not shared domain. Non-empty. */
  readonly justification: string;
  /** Why the call skips the router. */
  readonly bypassRouting: BypassRouting;
  /** Specialist tools are never exposed to peers; only `false` is accepted. */
  readonly peerExposed?: false;
}

/** What a consumer passes to `ToolRegistry.register`: one of the three legal scope x routing pairs. */
export type ToolDefinition<TArgs = ToolArgs, TResult = unknown> =
  | GeneralistToolDefinition<TArgs, TResult>
  | RoutedSpecialistToolDefinition<TArgs, TResult>
  | BypassSpecialistToolDefinition<TArgs, TResult>;

/** Fields of every registered tool, with defaults filled in. Frozen. */
export interface RegisteredToolBase<TArgs = ToolArgs, TResult = unknown> {
  readonly name: string;
  readonly description: string;
  /** A frozen deep copy of the definition's schema. */
  readonly inputSchema: ToolInputSchema;
  /** A frozen deep copy of the definition's schema, when one was given. */
  readonly outputSchema?: JsonSchema;
  readonly handler: ToolHandler<TArgs, TResult>;
  /** As given; `false` when the definition left it unset. */
  readonly requiresApproval: ApprovalPolicy<TArgs>;
  readonly tags: readonly string[];
  readonly terminal: boolean;
  /** As given; `false` when unset. */
  readonly readsUntrusted: boolean;
  /** As given; `'approve'` when unset. */
  readonly untrustedTurns: UntrustedTurns;
  /** As given; `[]` when unset. */
  readonly personalData: readonly string[];
}

/** A registered generalist tool. */
export interface RegisteredGeneralistTool<TArgs = ToolArgs, TResult = unknown>
  extends RegisteredToolBase<TArgs, TResult> {
  readonly scope: 'generalist';
  readonly routing: 'routed';
  readonly peerExposed: boolean;
}

/** A registered routed specialist tool. */
export interface RegisteredRoutedSpecialistTool<TArgs = ToolArgs, TResult = unknown>
  extends RegisteredToolBase<TArgs, TResult> {
  readonly scope: 'specialist';
  readonly routing: 'routed';
  readonly justification: string;
  readonly peerExposed: false;
}

/** A registered bypass specialist tool. */
export interface RegisteredBypassSpecialistTool<TArgs = ToolArgs, TResult = unknown>
  extends RegisteredToolBase<TArgs, TResult> {
  readonly scope: 'specialist';
  readonly routing: 'bypass';
  readonly justification: string;
  readonly bypassRouting: BypassRouting;
  readonly peerExposed: false;
}

/** A tool as the registry keeps it; narrow on `scope` and `routing`. */
export type RegisteredTool<TArgs = ToolArgs, TResult = unknown> =
  | RegisteredGeneralistTool<TArgs, TResult>
  | RegisteredRoutedSpecialistTool<TArgs, TResult>
  | RegisteredBypassSpecialistTool<TArgs, TResult>;

/** One reason a value does not match a schema; `path` is a JSON Pointer into the value (`''` = root). */
export type ToolIssue = ShapeIssue;

/**
 * The outcome of checking model-supplied arguments or a handler's output. Failures are values,
 * meant to be sent back to the model as a tool result, never thrown.
 */
export type ToolCheckResult<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      /** `tool.invalid_arguments`, `tool.invalid_output`, or `tool.unknown` for an unregistered name. */
      readonly code: 'tool.invalid_arguments' | 'tool.invalid_output' | 'tool.unknown';
      /** One paragraph for the model: the tool and every issue. */
      readonly message: string;
      readonly issues: readonly ToolIssue[];
    };

/** The tool shape of the Anthropic Messages API. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  /** A fresh, mutable copy of the tool's input schema. */
  readonly input_schema: { type: 'object'; [keyword: string]: unknown };
}
