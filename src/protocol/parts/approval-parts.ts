/**
 * The data shapes of the `approval-request` and `approval-response` parts, and their checks.
 * Approvals cross channels (asked in chat, answered by email), so both carry `approvalId`.
 */
import { isIsoDateTime } from '../iso-date-time.ts';

/** `data` of an `approval-request` part. */
export interface ApprovalRequest {
  /** Correlation id, unique within the session. */
  readonly approvalId: string;
  readonly toolName: string;
  /** The model's own tool-call id. */
  readonly toolCallId: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The actor (handler) that asked for the tool. */
  readonly handler: string;
  /** The turn (handler invocation) id. */
  readonly turn: string;
  /** The session id. */
  readonly session: string;
  /** ISO 8601 date-time after which the request is denied automatically. */
  readonly expiresAt?: string;
  /**
   * Why a person is asked, when the tool's policy is not the whole story: in a turn that read
   * content from outside, `this turn read content from outside: email body`.
   */
  readonly reason?: string;
}

/** `data` of an `approval-response` part. */
export interface ApprovalResponse {
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  readonly reason?: string;
  /** A user id, a policy name, or an auto-approval rule. */
  readonly decidedBy?: string;
  /** ISO 8601 date-time. */
  readonly decidedAt: string;
}

/** One reason a value does not match a shape; `path` is a JSON Pointer into the value. */
export interface ShapeIssue {
  readonly path: string;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(data: Record<string, unknown>, key: string, issues: ShapeIssue[], optional = false): void {
  const value = data[key];
  if (value === undefined) {
    if (!optional) issues.push({ path: `/${key}`, message: `"${key}" is required` });
    return;
  }
  if (typeof value !== 'string' || value.length === 0) {
    issues.push({ path: `/${key}`, message: `"${key}" must be a non-empty string` });
  }
}

function requireDateTime(data: Record<string, unknown>, key: string, issues: ShapeIssue[], optional = false): void {
  const value = data[key];
  if (value === undefined && optional) return;
  if (!isIsoDateTime(value)) {
    issues.push({ path: `/${key}`, message: `"${key}" must be an ISO 8601 date-time` });
  }
}

/** Checks `data` against {@link ApprovalRequest}; an empty list means it matches. */
export function checkApprovalRequest(data: unknown): ShapeIssue[] {
  if (!isRecord(data)) return [{ path: '', message: 'approval-request data must be an object' }];
  const issues: ShapeIssue[] = [];
  for (const key of ['approvalId', 'toolName', 'toolCallId', 'handler', 'turn', 'session']) {
    requireString(data, key, issues);
  }
  if (!isRecord(data['args'])) issues.push({ path: '/args', message: '"args" must be an object' });
  requireDateTime(data, 'expiresAt', issues, true);
  requireString(data, 'reason', issues, true);
  return issues;
}

/** Checks `data` against {@link ApprovalResponse}; an empty list means it matches. */
export function checkApprovalResponse(data: unknown): ShapeIssue[] {
  if (!isRecord(data)) return [{ path: '', message: 'approval-response data must be an object' }];
  const issues: ShapeIssue[] = [];
  requireString(data, 'approvalId', issues);
  if (data['decision'] !== 'granted' && data['decision'] !== 'denied') {
    issues.push({ path: '/decision', message: '"decision" must be "granted" or "denied"' });
  }
  requireString(data, 'reason', issues, true);
  requireString(data, 'decidedBy', issues, true);
  requireDateTime(data, 'decidedAt', issues);
  return issues;
}
