/**
 * The protocol core of switchboard: part and turn-state registries, the respond() tool, the tool
 * registry, the envelope builder and the Agent Card. Channel-agnostic; it imports no channel SDK,
 * queue library, Redis client or LLM SDK (`boundary.test.ts` proves it).
 */
export { ERROR_CODES, SwitchboardError, toSwitchboardError, type ErrorCode, type SwitchboardErrorOptions } from './errors.ts';

export type { BufferedDelivery, DeliveryClass, DeliveryRules, JsonObject, MergeStrategy, Part, PartMetadata, StreamingDelivery } from './parts/part.ts';
export { ruleDelivers } from './parts/part.ts';
export { NAMESPACED_ID, PartTypeRegistry, type PartTypeDefinition, type PartTypeRegistration } from './parts/part-type-registry.ts';
export { CORE_PART_TYPES, ENVELOPE_PART_TYPES, createPartTypeRegistry } from './parts/canonical-part-types.ts';
export { checkApprovalRequest, checkApprovalResponse, type ApprovalRequest, type ApprovalResponse, type ShapeIssue } from './parts/approval-parts.ts';
export {
  CANONICAL_TURN_STATES,
  TurnStateRegistry,
  createTurnStateRegistry,
  type EnvelopeEmission,
  type TurnStateDefinition,
  type TurnStateRegistration,
} from './turn-states/turn-state-registry.ts';

export { RESPOND_TOOL_NAME, buildRespondTool, type ModelToolSchema } from './respond/respond-schema.ts';
export type { RespondCall, RespondIssue, RespondIssueCode } from './respond/respond-call.ts';
export {
  respondErrorToolResult,
  validateRespondCall,
  type ErrorToolResult,
  type RespondValidation,
  type RespondValidationContext,
} from './respond/validate-respond-call.ts';
export {
  parseRespondCall,
  type PartReceivedEvent,
  type RespondCallOrigin,
  type RespondEvent,
  type TurnStateChangedEvent,
} from './respond/parse-respond-call.ts';
export { RESPOND_SYSTEM_PROMPT, terminalToolsPromptSection } from './respond/system-prompt.ts';

export { createToolRegistry, ToolRegistry, type ToolRegistryConfig } from './tools/tool-registry.ts';
export { defineTool } from './tools/define-tool.ts';
export { createToolHandlerContext, type ToolHandlerContextInput } from './tools/tool-handler-context.ts';
export type { ApprovalRequirement } from './tools/approval-policy.ts';
export type {
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalPolicyFunction,
  AutoApproveRule,
  RegisteredTool,
  ToolArgs,
  ToolCheckResult,
  ToolDefinition,
  ToolHandler,
  ToolHandlerContext,
  ToolRouting,
  ToolScope,
} from './tools/tool-definition.ts';

export type { DataBearingEvent, Envelope, EnvelopeMeta } from './envelope/envelope.ts';
export { buildEnvelope, type BuildEnvelopeOptions, type BuildEnvelopeResult } from './envelope/envelope-builder.ts';
export { collectDomainData } from './envelope/collect-domain-data.ts';
export { SurfaceTemplateRegistry, createSurfaceTemplateRegistry } from './envelope/surface-templates.ts';
export type { A2uiComponent, A2uiSurfaceMessage, SurfaceTemplate } from './envelope/a2ui.ts';
export { APPROVAL_ACTION_EVENT, approvalSurfaceTemplate } from './envelope/approval-surface.ts';
export { cacheTranslationsByTurn, originatorsWantLlmContext, type LlmContextTranslator } from './envelope/llm-context.ts';
export { filterForTransport, peerTransport, type DroppedPart, type FilteredParts, type Transport } from './envelope/delivery-filter.ts';
export { StateMachineRegistry, createStateMachineRegistry, type StateMachineDefinition } from './envelope/state-machine.ts';

export { BEACH_EXTENSION_URI, beachEnvelopeConsumes } from './agent-card/beach-extension.ts';
export { buildAgentCard, type BuildAgentCardOptions } from './agent-card/agent-card.ts';
export { validateAgentCard, type AgentCardValidation } from './agent-card/validate-agent-card.ts';
