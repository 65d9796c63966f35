import type { ApprovalDecision, ToolDelegation, ToolHandlerContext } from './tool-definition.ts';

/** What {@link createToolHandlerContext} accepts; `undefined` optional fields are dropped. */
export interface ToolHandlerContextInput {
  readonly actorName: string;
  readonly sessionId: string;
  readonly turnId: string;
  /** The call's position, `<turnId>.<step>.<blockIndex>` (see {@link ToolHandlerContext.callId}). */
  readonly callId?: string | undefined;
  readonly userId?: string | undefined;
  readonly personId?: string | undefined;
  readonly tenantId?: string | undefined;
  readonly approvalDecision?: ApprovalDecision | undefined;
  readonly attributes?: Readonly<Record<string, unknown>> | undefined;
  /** The delegation hook of a call the actor loop runs (kept out of enumeration, see the type). */
  readonly delegation?: ToolDelegation | undefined;
}

/**
 * Builds the frozen context a handler and an approval policy receive. Only the known fields are
 * copied (no stray keys reach a CEL policy); optional fields that are `undefined` are left out, so
 * a policy can test them with `has(ctx.userId)`.
 *
 * @example
 * const ctx = createToolHandlerContext({ actorName: 'triage', sessionId: 's1', turnId: 't1', userId: 'u1' });
 */
export function createToolHandlerContext(input: ToolHandlerContextInput): ToolHandlerContext {
  const context: ToolHandlerContext = {
    actorName: input.actorName,
    sessionId: input.sessionId,
    turnId: input.turnId,
    ...(input.callId === undefined ? {} : { callId: input.callId }),
    ...(input.userId === undefined ? {} : { userId: input.userId }),
    ...(input.personId === undefined ? {} : { personId: input.personId }),
    ...(input.tenantId === undefined ? {} : { tenantId: input.tenantId }),
    ...(input.approvalDecision === undefined
      ? {}
      : { approvalDecision: Object.freeze({ ...input.approvalDecision }) }),
    ...(input.attributes === undefined ? {} : { attributes: input.attributes }),
  };
  // Not enumerable: a CEL policy, a route observer or a log that copies the context never sees functions.
  if (input.delegation !== undefined) Object.defineProperty(context, 'delegation', { value: input.delegation, enumerable: false });
  return Object.freeze(context);
}
