/** Turns the `approvals` of `switchboard.yaml` into {@link ApprovalConfig}s, checking references. */
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { AppProblems } from './app-problems.ts';
import {
  DEFAULT_APPROVAL_EXPIRY_MINUTES,
  ROLE_APPROVER_PREFIX,
  type ApprovalConfig,
  type Person,
  type SwitchboardConfig,
} from './app-types.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

/**
 * Fills defaults (`allowRequester: false`, `expiresInMinutes`
 * {@link DEFAULT_APPROVAL_EXPIRY_MINUTES}) and records a problem for: a tool that is not registered
 * or never requires approval, a tool listed twice, an approver that is neither a known person id
 * nor a role some person has, and an entry nobody could approve.
 */
export function resolveApprovals(
  config: SwitchboardConfig,
  people: readonly Person[],
  registry: ToolRegistry,
  problems: AppProblems,
): ApprovalConfig[] {
  const personIds = new Set(people.map((person) => person.id));
  const roles = new Set(people.flatMap((person) => person.roles));
  const firstByTool = new Map<string, number>();
  return (config.approvals ?? []).map((entry, index) => {
    const at = `approvals[${index}]`;
    const tool = registry.get(entry.tool);
    if (tool === undefined) {
      problems.add(SWITCHBOARD_FILE, `${at}.tool`, `unknown tool "${entry.tool}". Known tools: ${registry.names().join(', ') || '(none)'}`);
    } else if (tool.requiresApproval === false) {
      problems.add(SWITCHBOARD_FILE, `${at}.tool`, `tool "${entry.tool}" never requires approval (its requiresApproval is false), so this entry would never apply`);
    }
    const earlier = firstByTool.get(entry.tool);
    if (earlier === undefined) firstByTool.set(entry.tool, index);
    else problems.add(SWITCHBOARD_FILE, `${at}.tool`, `"${entry.tool}" is already configured by approvals[${earlier}]`);

    entry.approvers.forEach((approver, position) => {
      if (approver.startsWith(ROLE_APPROVER_PREFIX)) {
        const role = approver.slice(ROLE_APPROVER_PREFIX.length);
        if (!roles.has(role)) problems.add(SWITCHBOARD_FILE, `${at}.approvers[${position}]`, `no person has the role "${role}"`);
      } else if (!personIds.has(approver)) {
        problems.add(SWITCHBOARD_FILE, `${at}.approvers[${position}]`, `"${approver}" is not the id of a person in people`);
      }
    });
    const allowRequester = entry.allowRequester ?? false;
    if (entry.approvers.length === 0 && !allowRequester) {
      problems.add(SWITCHBOARD_FILE, `${at}.approvers`, 'is empty and allowRequester is not true, so nobody could approve');
    }
    return {
      tool: entry.tool,
      approvers: [...entry.approvers],
      allowRequester,
      expiresInMinutes: entry.expiresInMinutes ?? DEFAULT_APPROVAL_EXPIRY_MINUTES,
    };
  });
}
