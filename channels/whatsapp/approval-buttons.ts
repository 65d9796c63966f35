/**
 * The ids of WhatsApp approval buttons (Cloud API reply buttons and template quick replies):
 * `apr:<approvalId>:<a|d>:<argsHash>`, at most 134 characters (Meta allows 256). The id names the
 * approval and the call it was asked for; who may decide is still checked by the approval store.
 */
/** What a button decides. */
export interface ApprovalButton {
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  /** The hash of the arguments the request showed, when the id carried one. */
  readonly argsHash?: string;
}

/** The button titles, at most 20 characters each (Meta's limit). */
export const APPROVE_TITLE = 'Approve';
export const DENY_TITLE = 'Deny';

/** The id of one approval button. */
export function approvalButtonId(button: ApprovalButton): string {
  return `apr:${button.approvalId}:${button.decision === 'granted' ? 'a' : 'd'}${button.argsHash === undefined ? '' : `:${button.argsHash}`}`;
}

/** The approval a button id names; `undefined` for any other id. */
export function readApprovalButtonId(id: string): ApprovalButton | undefined {
  const match = /^apr:([A-Za-z0-9_-]{1,64}):([ad])(?::([0-9a-f]{64}))?$/.exec(id);
  const approvalId = match?.[1];
  if (match === null || approvalId === undefined) return undefined;
  const argsHash = match[3];
  return { approvalId, decision: match[2] === 'a' ? 'granted' : 'denied', ...(argsHash === undefined ? {} : { argsHash }) };
}
