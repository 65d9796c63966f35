/**
 * The built-in surface for `approval-request` parts: a Card holding a Column of three Texts (tool
 * name, a short summary of the arguments, the expiry) and two Buttons, Approve and Deny. Each button's
 * action sends the event {@link APPROVAL_ACTION_EVENT} with `{ approvalId, decision }` as its context,
 * so the client submits the exact correlation id with a `granted` or `denied` decision (the values of
 * an `approval-response`). Only basic-catalog components are used, with literal values.
 */

import { SwitchboardError } from '../errors.ts';
import { checkApprovalRequest } from '../parts/approval-parts.ts';
import type { ApprovalRequest } from '../parts/approval-parts.ts';
import { A2UI_VERSION, BASIC_CATALOG_ID, ROOT_COMPONENT_ID } from './a2ui.ts';
import type { A2uiComponent, A2uiSurfaceMessage, SurfaceTemplate } from './a2ui.ts';

/** The data kind (and part type) the approval template is registered under. */
export const APPROVAL_REQUEST_KIND = 'approval-request';

/** Name of the event both approval buttons send. */
export const APPROVAL_ACTION_EVENT = 'approval.decide';

/** Longest argument summary, in characters, before it is cut with an ellipsis. */
export const APPROVAL_ARGS_SUMMARY_MAX_CHARS = 200;

/** The surface id the builder gives the approval surface of `approvalId`. */
export function approvalSurfaceId(approvalId: string): string {
  return `approval-${approvalId}`;
}

/**
 * A one-line summary of tool arguments for a person: `key: value` pairs in argument order, values as
 * compact JSON, joined by `, ` and cut to `maxChars` characters (ending in `…` when cut). `(no
 * arguments)` when empty. For display only: what is approved is the exact argument set.
 */
export function summarizeArgs(args: Readonly<Record<string, unknown>>, maxChars = APPROVAL_ARGS_SUMMARY_MAX_CHARS): string {
  const entries = Object.entries(args);
  if (entries.length === 0) return '(no arguments)';
  const text = entries.map(([key, value]) => `${key}: ${compactJson(value)}`).join(', ');
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

function compactJson(value: unknown): string {
  // JSON.stringify gives undefined (despite its declared type) for undefined and functions.
  const stringify: (input: unknown) => string | undefined = JSON.stringify;
  return stringify(value) ?? String(value);
}

function button(id: string, label: string, approvalId: string, decision: 'granted' | 'denied'): A2uiComponent[] {
  return [
    {
      id,
      component: 'Button',
      child: `${id}-label`,
      variant: decision === 'granted' ? 'primary' : 'default',
      action: { event: { name: APPROVAL_ACTION_EVENT, context: { approvalId, decision } } },
    },
    { id: `${id}-label`, component: 'Text', text: label },
  ];
}

/**
 * The built-in `approval-request` surface template. Uses `context.surfaceId` (by default
 * `approval-<approvalId>`).
 *
 * @throws SwitchboardError `envelope.invalid` (details: `issues`) when `data` is not an
 *   {@link ApprovalRequest}: without a valid `approvalId` no button could be answered.
 */
export const approvalSurfaceTemplate: SurfaceTemplate = (data, context): A2uiSurfaceMessage => {
  const issues = checkApprovalRequest(data);
  if (issues.length > 0) {
    throw new SwitchboardError('envelope.invalid', 'approval-request data is not a valid approval request.', {
      details: { issues },
    });
  }
  const request = data as ApprovalRequest;
  const surfaceId = context.surfaceId;
  const texts: A2uiComponent[] = [
    { id: 'approval-tool', component: 'Text', variant: 'h3', text: `Approve ${request.toolName}?` },
    { id: 'approval-args', component: 'Text', variant: 'body', text: summarizeArgs(request.args) },
    {
      id: 'approval-expiry',
      component: 'Text',
      variant: 'caption',
      text: request.expiresAt === undefined ? 'Does not expire.' : `Expires at ${request.expiresAt}.`,
    },
  ];
  const approve = button('approval-approve', 'Approve', request.approvalId, 'granted');
  const deny = button('approval-deny', 'Deny', request.approvalId, 'denied');
  const components: A2uiComponent[] = [
    { id: ROOT_COMPONENT_ID, component: 'Card', child: 'approval-body' },
    {
      id: 'approval-body',
      component: 'Column',
      children: [...texts.map((text) => text.id), 'approval-approve', 'approval-deny'],
    },
    ...texts,
    ...approve,
    ...deny,
  ];
  return {
    version: A2UI_VERSION,
    createSurface: { surfaceId, catalogId: BASIC_CATALOG_ID },
    updateComponents: { surfaceId, components },
  };
};
