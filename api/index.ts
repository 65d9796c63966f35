/**
 * The public API of switchboard: what an app folder (`SWITCHBOARD_APP`) imports as `switchboard`.
 * Tools, their context and approval policies; the parts, envelopes and surfaces a turn produces,
 * and what a surface template (`surfaces/<kind>.ts`) is written with; the text helpers of the SMS
 * channel. Everything else in this repository is internal and may change; this module names each
 * thing it offers (no `export *`).
 *
 * @example
 * import { defineTool, type ToolHandlerContext } from 'switchboard';
 * import { basicSurfaceMessage, defineSurface } from 'switchboard';
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
  UntrustedTurns,
} from '../src/protocol/tools/tool-definition.ts';
export type { JsonObject, MergeStrategy, Part, PartMetadata } from '../src/protocol/parts/part.ts';
export type { ApprovalRequest, ApprovalResponse } from '../src/protocol/parts/approval-parts.ts';
export type { DataBearingEvent, Envelope, EnvelopeMeta } from '../src/protocol/envelope/envelope.ts';
export { A2UI_VERSION, BASIC_CATALOG_ID, ROOT_COMPONENT_ID } from '../src/protocol/envelope/a2ui.ts';
export type {
  A2uiChildTemplate,
  A2uiComponent,
  A2uiDataBinding,
  A2uiEventAction,
  A2uiSurfaceMessage,
  SurfaceTemplate,
  SurfaceTemplateContext,
} from '../src/protocol/envelope/a2ui.ts';
export { basicSurfaceMessage, defineSurface } from '../src/protocol/envelope/define-surface.ts';
export type { BasicSurfaceOptions } from '../src/protocol/envelope/define-surface.ts';
export { checkSurfaceMessage, MAX_SURFACE_COMPONENTS, MAX_SURFACE_DATA_MODEL_BYTES } from '../src/protocol/envelope/surface-check.ts';
export { isGsm7, smsSegmentCount } from '../channels/kit/render/sms-segments.ts';
export { normaliseGsm } from '../channels/kit/render/gsm.ts';
