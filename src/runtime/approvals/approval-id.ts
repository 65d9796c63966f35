/** Approval ids: unguessable, URL-safe, fit in a Slack button value and a BullMQ job id. */
import { randomBytes } from 'node:crypto';

/** A new approval id: 128 random bits as base64url without padding (22 characters of `[A-Za-z0-9_-]`). */
export function newApprovalId(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `value` has the shape of an approval id (22 characters of `[A-Za-z0-9_-]`). */
export function isApprovalId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value);
}
