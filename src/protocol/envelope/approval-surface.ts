/**
 * The built-in surface for `approval-request` parts: a Card holding a Column with a title (the
 * tool's purpose, from its description), who asked for which tool, the arguments as readable rows,
 * the expiry, who may decide, and a Row of two Buttons, Approve and Deny. Each button's action sends
 * the event {@link APPROVAL_ACTION_EVENT} with `{ approvalId, decision }` (and the request's
 * `argsHash` when it has one) as its context, so the client submits the exact correlation id with a
 * `granted` or `denied` decision (the values of an `approval-response`). Only basic-catalog
 * components are used, with literal values.
 */

import { SwitchboardError } from '../errors.ts';
import { checkApprovalRequest } from '../parts/approval-parts.ts';
import type { ApprovalRequest } from '../parts/approval-parts.ts';
import type { A2uiComponent, A2uiSurfaceMessage, SurfaceTemplate } from './a2ui.ts';
import { ROOT_COMPONENT_ID } from './a2ui.ts';
import { argumentComponents } from './approval-rows.ts';
import { basicSurfaceMessage } from './define-surface.ts';
import { isoWithOffset, checkTimeZone } from './iso-offset.ts';

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

/**
 * The first sentence of a tool description, without its full stop, for a title: the text up to the
 * first `.`, `!` or `?` followed by a space or the end. `undefined` for an empty description.
 *
 * @example firstSentence('Book seats on one flight. Needs approval.') // 'Book seats on one flight'
 */
export function firstSentence(description: string): string | undefined {
  const text = description.trim().replace(/\s+/g, ' ');
  const match = /^(.*?[^.!?\s])[.!?]+(?:\s|$)/.exec(text);
  const sentence = (match?.[1] ?? text).replace(/[.\s]+$/, '');
  return sentence === '' ? undefined : sentence;
}

/** Options of {@link createApprovalSurfaceTemplate}. */
export interface ApprovalSurfaceOptions {
  /**
   * The title of a tool's requests (e.g. the first sentence of its description, see
   * {@link firstSentence}). Default: none, so the title is `Approve <tool>?`.
   */
  readonly toolTitle?: (toolName: string) => string | undefined;
  /**
   * Who may decide a tool's requests, in words (`Grace Hopper, or anyone with the role
   * travel-admin`). Default: none, and the surface does not say.
   */
  readonly deciders?: (toolName: string) => string | undefined;
  /** IANA time zone the expiry is written in, as ISO 8601 with its offset. Default `UTC`. */
  readonly timeZone?: string;
}

function button(id: string, label: string, context: Readonly<Record<string, string>>, decision: 'granted' | 'denied'): A2uiComponent[] {
  return [
    {
      id,
      component: 'Button',
      child: `${id}-label`,
      variant: decision === 'granted' ? 'primary' : 'default',
      action: { event: { name: APPROVAL_ACTION_EVENT, context: { ...context, decision } } },
    },
    { id: `${id}-label`, component: 'Text', text: label },
  ];
}

function requestOf(data: unknown): ApprovalRequest & { readonly argsHash?: unknown; readonly mayDecide?: unknown; readonly waitingFor?: unknown } {
  const issues = checkApprovalRequest(data);
  if (issues.length > 0) {
    throw new SwitchboardError('envelope.invalid', 'approval-request data is not a valid approval request.', {
      details: { issues },
    });
  }
  return data as ApprovalRequest;
}

/** The answer controls: the two Buttons in a Row, or, when the part says its reader may not decide, whom it waits for. */
function answerComponents(request: ReturnType<typeof requestOf>): A2uiComponent[] {
  if (request.mayDecide === false) {
    const waiting = typeof request.waitingFor === 'string' ? request.waitingFor : 'Waiting for an approver.';
    return [{ id: 'approval-answer', component: 'Text', variant: 'caption', text: waiting }];
  }
  const context = { approvalId: request.approvalId, ...(typeof request.argsHash === 'string' ? { argsHash: request.argsHash } : {}) };
  return [
    { id: 'approval-answer', component: 'Row', children: ['approval-approve', 'approval-deny'] },
    ...button('approval-approve', 'Approve', context, 'granted'),
    ...button('approval-deny', 'Deny', context, 'denied'),
  ];
}

/**
 * An `approval-request` surface template. It uses `context.surfaceId` (by default
 * `approval-<approvalId>`).
 *
 * @throws SwitchboardError `config.invalid` when `options.timeZone` is not an IANA time zone.
 */
export function createApprovalSurfaceTemplate(options: ApprovalSurfaceOptions = {}): SurfaceTemplate {
  const timeZone = checkTimeZone(options.timeZone ?? 'UTC');
  return (data, context): A2uiSurfaceMessage => {
    const request = requestOf(data);
    const title = options.toolTitle?.(request.toolName);
    const deciders = options.deciders?.(request.toolName);
    const args = argumentComponents(request.args, 'approval-arg');
    const texts: A2uiComponent[] = [
      { id: 'approval-title', component: 'Text', variant: 'h3', text: title === undefined || title === '' ? `Approve ${request.toolName}?` : title },
      { id: 'approval-tool', component: 'Text', variant: 'caption', text: `${request.handler} asks to run ${request.toolName}` },
    ];
    const footer: A2uiComponent[] = [
      ...(request.reason === undefined ? [] : [{ id: 'approval-reason', component: 'Text', variant: 'caption', text: `Asked because ${request.reason}.` }]),
      {
        id: 'approval-expiry',
        component: 'Text',
        variant: 'caption',
        text: request.expiresAt === undefined ? 'Does not expire.' : `Expires at ${isoWithOffset(request.expiresAt, timeZone)}.`,
      },
      ...(deciders === undefined || deciders === '' ? [] : [{ id: 'approval-deciders', component: 'Text', variant: 'caption', text: `May decide: ${deciders}.` }]),
    ];
    const answer = answerComponents(request);
    const components: A2uiComponent[] = [
      { id: ROOT_COMPONENT_ID, component: 'Card', child: 'approval-body' },
      {
        id: 'approval-body',
        component: 'Column',
        children: [...texts.map((text) => text.id), ...args.ids, ...footer.map((text) => text.id), 'approval-answer'],
      },
      ...texts,
      ...args.components,
      ...footer,
      ...answer,
    ];
    return basicSurfaceMessage({ surfaceId: context.surfaceId, components });
  };
}

/**
 * The built-in `approval-request` surface template, without tool titles or deciders (see
 * {@link createApprovalSurfaceTemplate} for a template that has them), expiry in UTC.
 *
 * @throws SwitchboardError `envelope.invalid` (details: `issues`) when `data` is not an
 *   {@link ApprovalRequest}: without a valid `approvalId` no button could be answered.
 */
export const approvalSurfaceTemplate: SurfaceTemplate = createApprovalSurfaceTemplate();
