/**
 * The structural rules of a tool definition, checked at registration for plain JavaScript objects
 * as much as for typed ones. Schemas and approval policies are compiled elsewhere.
 */
import { SwitchboardError } from '../errors.ts';
import { isPersonalDataPath, personalDataSegments } from './personal-data-paths.ts';
import type { ApprovalPolicy, JsonSchema, RegisteredTool, ToolHandler, ToolInputSchema, UntrustedTurns } from './tool-definition.ts';

/** Anthropic's rule for tool names: 1 to 64 letters, digits, `_` or `-`. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Names no consumer tool may take (compared case-insensitively): `respond` is the actor's built-in
 * reply tool and never lives in the registry.
 */
export const RESERVED_TOOL_NAMES: readonly string[] = ['respond'];

/** Every field a definition may have; anything else (a typo such as `requireApproval`) is rejected. */
export const TOOL_DEFINITION_FIELDS: readonly string[] = [
  'name',
  'description',
  'inputSchema',
  'outputSchema',
  'handler',
  'scope',
  'routing',
  'bypassRouting',
  'justification',
  'requiresApproval',
  'tags',
  'peerExposed',
  'terminal',
  'readsUntrusted',
  'untrustedTurns',
  'personalData',
];

/** Stable ids of the rules, found in `details.rule` of a `tool.invalid_definition` error. */
export type ToolDefinitionRule =
  | 'definition-object'
  | 'name-format'
  | 'name-reserved'
  | 'unknown-field'
  | 'description-required'
  | 'handler-required'
  | 'input-schema-object'
  | 'scope-value'
  | 'routing-value'
  | 'generalist-routed-only'
  | 'specialist-field-on-generalist'
  | 'specialist-justification'
  | 'bypass-reason'
  | 'bypass-routing-needs-bypass'
  | 'peer-exposed-specialist'
  | 'peer-exposed-boolean'
  | 'tags-strings'
  | 'terminal-boolean'
  | 'reads-untrusted-boolean'
  | 'untrusted-turns-value'
  | 'personal-data-paths';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUntrustedTurns(value: unknown): value is UntrustedTurns {
  return value === 'approve' || value === 'policy';
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value);
  } catch {
    return typeof value;
  }
}

function violation(tool: string, rule: ToolDefinitionRule, message: string, extra: Record<string, unknown> = {}): SwitchboardError {
  return new SwitchboardError('tool.invalid_definition', `Tool ${tool}: ${message}`, {
    details: { tool, rule, ...extra },
  });
}

/**
 * The `personalData` paths of a definition: each well formed, its first name `*` or an argument
 * the input schema declares (when it declares any), so a typo does not leave a field unmasked.
 */
function personalDataOf(shown: string, value: unknown, inputSchema: Readonly<Record<string, unknown>>): readonly string[] {
  const paths = value ?? [];
  if (!Array.isArray(paths) || !paths.every((path): path is string => typeof path === 'string' && isPersonalDataPath(path))) {
    throw violation(shown, 'personal-data-paths', 'personalData must be an array of paths such as "email" or "passengers/*/fullName".');
  }
  const properties = inputSchema['properties'];
  if (isRecord(properties)) {
    const unknown = paths.filter((path) => {
      const [first = ''] = personalDataSegments(path);
      return first !== '*' && !Object.hasOwn(properties, first);
    });
    if (unknown.length > 0) {
      throw violation(shown, 'personal-data-paths', `personalData names argument(s) the input schema does not have: ${unknown.map((path) => `"${path}"`).join(', ')}.`, { paths: unknown });
    }
  }
  return Object.freeze([...paths]);
}

/**
 * Checks `definition` against every structural rule and fills defaults (`routing: 'routed'`,
 * `peerExposed: false`, `tags: []`, `terminal: false`, `requiresApproval: false`,
 * `readsUntrusted: false`, `untrustedTurns: 'approve'`, `personalData: []`). The schemas are
 * returned as given; the registry replaces them with compiled, frozen copies.
 *
 * @throws SwitchboardError `tool.invalid_definition` on the first broken rule, naming the tool and
 *   the rule; `details` holds `{ tool, rule, ... }`.
 */
export function normalizeToolDefinition(definition: unknown): RegisteredTool {
  if (!isRecord(definition)) {
    throw violation('(not an object)', 'definition-object', 'a tool definition must be an object.');
  }
  const rawName = definition['name'];
  const shown = typeof rawName === 'string' ? `"${rawName}"` : `(name ${show(rawName)})`;
  if (typeof rawName !== 'string' || !TOOL_NAME_PATTERN.test(rawName)) {
    throw violation(shown, 'name-format', 'name must match ^[a-zA-Z0-9_-]{1,64}$ (1-64 letters, digits, "_" or "-").');
  }
  const name = rawName;
  if (RESERVED_TOOL_NAMES.includes(name.toLowerCase())) {
    throw violation(shown, 'name-reserved', `"${name}" is reserved: respond() is built into every actor and is not a registered tool.`);
  }
  const unknown = Object.keys(definition).filter((key) => !TOOL_DEFINITION_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw violation(shown, 'unknown-field', `unknown field(s) ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: ${TOOL_DEFINITION_FIELDS.join(', ')}.`, { fields: unknown });
  }
  const description = definition['description'];
  if (!isNonEmptyString(description)) {
    throw violation(shown, 'description-required', 'description is required and must be a non-empty string.');
  }
  const handler = definition['handler'];
  if (typeof handler !== 'function') {
    throw violation(shown, 'handler-required', 'handler is required and must be a function (args, ctx) => result.');
  }
  const inputSchema = definition['inputSchema'];
  if (!isRecord(inputSchema) || inputSchema['type'] !== 'object') {
    throw violation(shown, 'input-schema-object', 'inputSchema is required and must be a JSON Schema object with type: "object".');
  }
  const tags = definition['tags'] ?? [];
  if (!Array.isArray(tags) || !tags.every(isNonEmptyString)) {
    throw violation(shown, 'tags-strings', 'tags must be an array of non-empty strings.');
  }
  const terminal = definition['terminal'] ?? false;
  if (typeof terminal !== 'boolean') {
    throw violation(shown, 'terminal-boolean', 'terminal must be a boolean.');
  }
  const readsUntrusted = definition['readsUntrusted'] ?? false;
  if (typeof readsUntrusted !== 'boolean') {
    throw violation(shown, 'reads-untrusted-boolean', 'readsUntrusted must be a boolean.');
  }
  const untrustedTurns = definition['untrustedTurns'] ?? 'approve';
  if (!isUntrustedTurns(untrustedTurns)) {
    throw violation(shown, 'untrusted-turns-value', `untrustedTurns must be "approve" or "policy", not ${show(untrustedTurns)}.`);
  }
  const personalData = personalDataOf(shown, definition['personalData'], inputSchema);
  const peerExposed = definition['peerExposed'] ?? false;
  if (typeof peerExposed !== 'boolean') {
    throw violation(shown, 'peer-exposed-boolean', 'peerExposed must be a boolean.');
  }
  const routing = definition['routing'] ?? 'routed';
  if (routing !== 'routed' && routing !== 'bypass') {
    throw violation(shown, 'routing-value', `routing must be "routed" or "bypass", not ${show(routing)}.`);
  }

  const base = {
    name,
    description,
    inputSchema: inputSchema as unknown as ToolInputSchema,
    ...(definition['outputSchema'] === undefined ? {} : { outputSchema: definition['outputSchema'] as JsonSchema }),
    handler: handler as ToolHandler,
    requiresApproval: (definition['requiresApproval'] ?? false) as ApprovalPolicy,
    tags: Object.freeze([...tags]),
    terminal,
    readsUntrusted,
    untrustedTurns,
    personalData,
  };

  const scope = definition['scope'];
  if (scope === 'generalist') {
    if (routing === 'bypass') {
      throw violation(shown, 'generalist-routed-only', 'a generalist tool always routes; routing "bypass" is only for specialist tools.');
    }
    const misplaced = ['justification', 'bypassRouting'].filter((key) => definition[key] !== undefined);
    if (misplaced.length > 0) {
      throw violation(shown, 'specialist-field-on-generalist', `${misplaced.join(' and ')} only apply to specialist tools.`, { fields: misplaced });
    }
    return { ...base, scope, routing, peerExposed };
  }
  if (scope === 'specialist') {
    if (peerExposed) {
      throw violation(shown, 'peer-exposed-specialist', 'peerExposed is only allowed on generalist tools; a specialist tool is private to its actor.');
    }
    const justification = definition['justification'];
    if (!isNonEmptyString(justification)) {
      throw violation(shown, 'specialist-justification', 'a specialist tool needs a non-empty justification (why this work is private to one actor).');
    }
    const bypassRouting = definition['bypassRouting'];
    if (routing === 'routed') {
      if (bypassRouting !== undefined) {
        throw violation(shown, 'bypass-routing-needs-bypass', 'bypassRouting is only meaningful with routing: "bypass".');
      }
      return { ...base, scope, routing, justification, peerExposed: false };
    }
    const reason = isRecord(bypassRouting) ? bypassRouting['reason'] : undefined;
    if (!isRecord(bypassRouting) || Object.keys(bypassRouting).some((key) => key !== 'reason') || !isNonEmptyString(reason)) {
      throw violation(shown, 'bypass-reason', 'routing "bypass" needs bypassRouting: { reason: "<why the call skips the router>" }.');
    }
    return { ...base, scope, routing, justification, bypassRouting: Object.freeze({ reason }), peerExposed: false };
  }
  throw violation(shown, 'scope-value', `scope must be "generalist" or "specialist", not ${show(scope)}.`);
}
