/**
 * The surface templates a turn of the app is settled with: the built-in approval surface, told the
 * app's tool titles and who may decide, and the templates of the app's `surfaces/` folder.
 */
import { createApprovalSurfaceTemplate, firstSentence, APPROVAL_REQUEST_KIND } from '../../protocol/envelope/approval-surface.ts';
import { createSurfaceTemplateRegistry, type SurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { ROLE_APPROVER_PREFIX, type ApprovalConfig, type LoadedApp, type Person } from './app-types.ts';

/** Options of {@link createAppSurfaceRegistry}. */
export interface AppSurfaceRegistryOptions {
  /** The app: its surface templates, its approvals and its people. */
  readonly app: Pick<LoadedApp, 'surfaces' | 'approvals' | 'people'>;
  /** The tools, for the titles of their approval requests (the first sentence of each description). */
  readonly tools: Pick<ToolRegistry, 'get'>;
  /** IANA time zone of the approval surface's expiry. Default `UTC`. */
  readonly timeZone?: string;
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string | undefined {
  const last = items.at(-1);
  if (last === undefined) return undefined;
  return items.length === 1 ? last : `${items.slice(0, -1).join(', ')} or ${last}`;
}

/**
 * Who may decide a tool's requests under `config`, in words: each approver person by name, each
 * `role:<name>` as `anyone with the role <name>`, and `the person who asked` when the requester
 * may. `undefined` when the tool has no approvals entry (or the entry names nobody).
 *
 * @example decidersText({ tool: 'book_flight', approvers: ['grace', 'role:travel-admin'], allowRequester: true, expiresInMinutes: 60 }, people)
 * // 'Grace Hopper, anyone with the role travel-admin or the person who asked'
 */
export function decidersText(config: ApprovalConfig | undefined, people: readonly Person[]): string | undefined {
  if (config === undefined) return undefined;
  const names = config.approvers.map((approver) =>
    approver.startsWith(ROLE_APPROVER_PREFIX)
      ? `anyone with the role ${approver.slice(ROLE_APPROVER_PREFIX.length)}`
      : (people.find((person) => person.id === approver)?.name ?? approver),
  );
  return orList([...new Set(names), ...(config.allowRequester ? ['the person who asked'] : [])]);
}

/** Words for a tool's approval requests: a title and who may decide; a field is absent when unknown. */
export interface ApprovalWords {
  readonly title?: string;
  readonly deciders?: string;
}

/**
 * The words of `toolName`'s approval requests in `app`: the first sentence of the tool's description
 * as the title, and who may decide (see {@link decidersText}). The approval surface and the
 * `approval-request` part's data (which the web card reads) both use them, so they agree.
 */
export function approvalWords(options: Omit<AppSurfaceRegistryOptions, 'timeZone'>, toolName: string): ApprovalWords {
  const description = options.tools.get(toolName)?.description;
  const title = description === undefined ? undefined : firstSentence(description);
  const deciders = decidersText(options.app.approvals.find((entry) => entry.tool === toolName), options.app.people);
  return { ...(title === undefined ? {} : { title }), ...(deciders === undefined ? {} : { deciders }) };
}

/**
 * A registry holding the approval surface, titled by the first sentence of the tool's description
 * and saying who may decide (from the app's `approvals`), then each template of the app's
 * `surfaces/` under its kind. An app template of the kind `approval-request` replaces the built-in
 * approval surface.
 */
export function createAppSurfaceRegistry(options: AppSurfaceRegistryOptions): SurfaceTemplateRegistry {
  const { app, tools } = options;
  const approvalTemplate = createApprovalSurfaceTemplate({
    toolTitle: (toolName) => approvalWords({ app, tools }, toolName).title,
    deciders: (toolName) => approvalWords({ app, tools }, toolName).deciders,
    ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
  });
  const registry = createSurfaceTemplateRegistry({ approvalTemplate });
  for (const surface of app.surfaces ?? []) {
    if (surface.kind === APPROVAL_REQUEST_KIND) registry.override(surface.kind, surface.template);
    else registry.register(surface.kind, surface.template);
  }
  return registry;
}
