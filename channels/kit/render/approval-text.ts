/**
 * An `approval-request` part as content a person can read on any channel: what the assistant wants
 * to do, with which arguments, until when. How to answer (a link, a reply keyword) is the channel's
 * to add, through `prompt`.
 */

import type { RootContent } from 'mdast';
import { checkApprovalRequest } from '../../../src/protocol/parts/approval-parts.ts';
import type { ApprovalRequest } from '../../../src/protocol/parts/approval-parts.ts';
import { genericTemplate, humanise } from './generic-template.ts';
import { headingNode, paragraphNode } from './mdast-build.ts';

/** Writes the channel's instructions for answering a request, e.g. `Reply YES to approve.` */
export type ApprovalPrompt = (request: ApprovalRequest) => string | undefined;

/** `2026-12-18T07:25:00Z` as `2026-12-18 07:25 UTC`; other offsets are kept as written. */
function expiry(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (match === null) return iso;
  const [, date, time, zone] = match;
  return `${date ?? ''} ${time ?? ''} ${zone === 'Z' || zone === '+00:00' ? 'UTC' : `UTC${zone ?? ''}`}`;
}

/** The title line of an approval request, e.g. `Approval needed: book flight`. */
export function approvalTitle(request: Pick<ApprovalRequest, 'toolName'>): string {
  return `Approval needed: ${humanise(request.toolName).toLowerCase()}`;
}

/**
 * The content of an approval request: a heading, the arguments as `Key: value` lines, why it is
 * asked (when the request says: the turn read content from outside), the expiry, and the
 * channel's `prompt`. `undefined` when `data` is not an approval request.
 */
export function approvalContent(data: unknown, prompt?: ApprovalPrompt): RootContent[] | undefined {
  if (checkApprovalRequest(data).length > 0) return undefined;
  const request = data as ApprovalRequest;
  const args = genericTemplate('arguments', request.args).slice(1);
  const content: RootContent[] = [headingNode(approvalTitle(request)), ...args];
  if (args.length === 0) content.push(paragraphNode('(no arguments)'));
  if (request.reason !== undefined) content.push(paragraphNode(`Asked because ${request.reason}.`));
  if (request.expiresAt !== undefined) content.push(paragraphNode(`Answer before ${expiry(request.expiresAt)}.`));
  const instructions = prompt?.(request);
  if (instructions !== undefined && instructions.trim() !== '') content.push(paragraphNode(instructions));
  return content;
}
