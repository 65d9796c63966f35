/**
 * The public API of switchboard: what an app folder (`SWITCHBOARD_APP`) imports as `switchboard`.
 * Tools, their context and approval policies; the parts, envelopes and surfaces a turn produces;
 * the text helpers of the SMS channel. Everything else in this repository is internal and may
 * change; this module names each thing it offers (no `export *`).
 *
 * @example
 * import { defineTool, type ToolHandlerContext } from 'switchboard';
 */
export { defineTool } from '../src/protocol/tools/define-tool.ts';
export type {
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalPolicyFunction,
  ApprovalPolicyInput,
  ApprovalPolicyVerdict,
  AutoApproveRule,
  BypassRouting,
  BypassSpecialistToolDefinition,
  GeneralistToolDefinition,
  JsonSchema,
  RoutedSpecialistToolDefinition,
  ToolArgs,
  ToolDefinition,
  ToolHandler,
  ToolHandlerContext,
  ToolInputSchema,
  ToolRouting,
  ToolScope,
} from '../src/protocol/tools/tool-definition.ts';
export type { JsonObject, MergeStrategy, Part, PartMetadata } from '../src/protocol/parts/part.ts';
export type { ApprovalRequest, ApprovalResponse } from '../src/protocol/parts/approval-parts.ts';
export type { DataBearingEvent, Envelope, EnvelopeMeta } from '../src/protocol/envelope/envelope.ts';
export type { A2uiSurfaceMessage, SurfaceTemplate, SurfaceTemplateContext } from '../src/protocol/envelope/a2ui.ts';
export { isGsm7, smsSegmentCount } from '../channels/kit/render/sms-segments.ts';
export { normaliseGsm } from '../channels/kit/render/gsm.ts';
