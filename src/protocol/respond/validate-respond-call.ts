import { checkApprovalRequest, checkApprovalResponse } from '../parts/approval-parts.ts';
import type { Part } from '../parts/part.ts';
import type { PartTypeRegistry } from '../parts/part-type-registry.ts';
import type { TurnStateRegistry } from '../turn-states/turn-state-registry.ts';
import type { RespondCall, RespondIssue } from './respond-call.ts';
import { RESPOND_TOOL_NAME } from './respond-schema.ts';

/** The registries a respond() call is checked against, and optional extra checks. */
export interface RespondValidationContext {
  readonly partTypes: PartTypeRegistry;
  readonly turnStates: TurnStateRegistry;
  /** When given, `passTo` must name one of these actors. */
  readonly knownActors?: readonly string[];
}

/** The outcome of {@link validateRespondCall}: the typed call, or every issue found. */
export type RespondValidation =
  | { readonly ok: true; readonly call: RespondCall }
  | { readonly ok: false; readonly issues: readonly RespondIssue[] };

/** An `is_error` tool result for the Anthropic Messages API. */
export interface ErrorToolResult {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly is_error: true;
  readonly content: string;
}

const CALL_KEYS: ReadonlySet<string> = new Set(['parts', 'turnState', 'passTo', 'note']);
const PART_KEYS: ReadonlySet<string> = new Set(['text', 'data', 'metadata']);
const RUNTIME_ONLY: ReadonlySet<string> = new Set(['approval-response']);

/** A value the model sent, in words for an issue: a string quoted, anything else by its type (never thrown on, as `JSON.stringify` is by a BigInt). */
function described(value: unknown): string {
  if (value === undefined) return 'none';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks one respond() input against the schema and both registries. Never throws on bad input:
 * a refused call comes back as a list of issues, to be returned to the model with
 * {@link respondErrorToolResult}.
 */
export function validateRespondCall(input: unknown, context: RespondValidationContext): RespondValidation {
  const issues: RespondIssue[] = [];
  if (!isRecord(input)) {
    return { ok: false, issues: [{ code: 'not_an_object', path: '', message: 'The input must be an object.' }] };
  }
  for (const key of Object.keys(input)) {
    if (!CALL_KEYS.has(key)) {
      issues.push({ code: 'unexpected_property', path: `/${key}`, message: `Unknown property "${key}".` });
    }
  }

  const parts = validateParts(input['parts'], context, issues);
  const turnState = validateTurnState(input['turnState'], context, issues);
  const passTo = validatePassTo(input['passTo'], turnState ?? input['turnState'], context, issues);

  const note = input['note'];
  if (note !== undefined && typeof note !== 'string') {
    issues.push({ code: 'note_not_string', path: '/note', message: '"note" must be a string.' });
  }

  if (issues.length > 0 || parts === undefined || turnState === undefined) return { ok: false, issues };
  const call: RespondCall = {
    parts,
    turnState,
    ...(passTo === undefined ? {} : { passTo }),
    ...(typeof note === 'string' ? { note } : {}),
  };
  return { ok: true, call };
}

function validateParts(
  value: unknown,
  context: RespondValidationContext,
  issues: RespondIssue[],
): Part[] | undefined {
  if (value === undefined) {
    issues.push({ code: 'parts_missing', path: '/parts', message: '"parts" is required.' });
    return undefined;
  }
  if (!Array.isArray(value)) {
    issues.push({ code: 'parts_not_array', path: '/parts', message: '"parts" must be an array of parts.' });
    return undefined;
  }
  if (value.length === 0) {
    issues.push({ code: 'parts_empty', path: '/parts', message: '"parts" needs at least one part.' });
    return undefined;
  }
  const parts: Part[] = [];
  value.forEach((raw: unknown, index) => {
    const part = validatePart(raw, `/parts/${index}`, context, issues);
    if (part !== undefined) parts.push(part);
  });
  return parts;
}

function validatePart(
  raw: unknown,
  path: string,
  context: RespondValidationContext,
  issues: RespondIssue[],
): Part | undefined {
  if (!isRecord(raw)) {
    issues.push({ code: 'part_not_object', path, message: 'Each part must be an object.' });
    return undefined;
  }
  for (const key of Object.keys(raw)) {
    if (!PART_KEYS.has(key)) {
      issues.push({
        code: 'part_unexpected_property',
        path: `${path}/${key}`,
        message: `Unknown part property "${key}"; a part has text, data and metadata.`,
      });
    }
  }
  const { text, data, metadata } = raw;
  const before = issues.length;
  if (text !== undefined && typeof text !== 'string') {
    issues.push({ code: 'text_not_string', path: `${path}/text`, message: '"text" must be a string.' });
  }
  if (data !== undefined && !isRecord(data)) {
    issues.push({ code: 'data_not_object', path: `${path}/data`, message: '"data" must be an object.' });
  }
  if (text === undefined && data === undefined) {
    issues.push({ code: 'part_empty', path, message: 'A part needs "text", "data", or both.' });
  }
  if (!isRecord(metadata)) {
    issues.push({ code: 'metadata_missing', path: `${path}/metadata`, message: '"metadata" with a partType is required.' });
    return undefined;
  }
  const partType = metadata['partType'];
  if (typeof partType !== 'string' || partType.length === 0) {
    issues.push({ code: 'part_type_missing', path: `${path}/metadata/partType`, message: '"partType" is required.' });
    return undefined;
  }
  if (!context.partTypes.has(partType)) {
    issues.push({
      code: 'part_type_unknown',
      path: `${path}/metadata/partType`,
      message: `Unknown partType "${partType}". Registered: ${context.partTypes.ids().join(', ')}.`,
    });
    return undefined;
  }
  if (RUNTIME_ONLY.has(partType)) {
    issues.push({
      code: 'part_type_runtime_only',
      path: `${path}/metadata/partType`,
      message: `"${partType}" is inbound only: the runtime creates it from a decision; an actor cannot emit it.`,
    });
  }
  checkApprovalData(partType, data, path, issues);
  if (issues.length > before) return undefined;
  return {
    ...(typeof text === 'string' ? { text } : {}),
    ...(isRecord(data) ? { data } : {}),
    metadata: { ...metadata, partType },
  };
}

function checkApprovalData(partType: string, data: unknown, path: string, issues: RespondIssue[]): void {
  const check =
    partType === 'approval-request' ? checkApprovalRequest : partType === 'approval-response' ? checkApprovalResponse : undefined;
  if (check === undefined) return;
  const code = partType === 'approval-request' ? 'approval_request_invalid' : 'approval_response_invalid';
  for (const issue of check(data)) {
    issues.push({ code, path: `${path}/data${issue.path}`, message: `${partType}: ${issue.message}.` });
  }
}

function validateTurnState(value: unknown, context: RespondValidationContext, issues: RespondIssue[]): string | undefined {
  if (typeof value !== 'string' || value.length === 0) {
    issues.push({ code: 'turn_state_missing', path: '/turnState', message: '"turnState" is required.' });
    return undefined;
  }
  if (!context.turnStates.has(value)) {
    issues.push({
      code: 'turn_state_unknown',
      path: '/turnState',
      message: `Unknown turnState "${value}". Registered: ${context.turnStates.ids().join(', ')}.`,
    });
    return undefined;
  }
  return value;
}

function validatePassTo(
  value: unknown,
  turnState: unknown,
  context: RespondValidationContext,
  issues: RespondIssue[],
): string | undefined {
  if (value === undefined) {
    if (turnState === 'passed') {
      issues.push({
        code: 'passed_without_pass_to',
        path: '/passTo',
        message: 'turnState "passed" needs "passTo" naming the actor that takes over.',
      });
    }
    return undefined;
  }
  if (typeof value !== 'string' || value.length === 0) {
    issues.push({ code: 'pass_to_not_string', path: '/passTo', message: '"passTo" must be an actor name.' });
    return undefined;
  }
  if (turnState !== 'passed') {
    issues.push({
      code: 'pass_to_without_passed',
      path: '/passTo',
      message: `"passTo" is only valid with turnState "passed" (got ${described(turnState)}).`,
    });
    return undefined;
  }
  if (context.knownActors !== undefined && !context.knownActors.includes(value)) {
    issues.push({
      code: 'pass_to_unknown_actor',
      path: '/passTo',
      message: `No actor named "${value}". Known actors: ${context.knownActors.join(', ')}.`,
    });
    return undefined;
  }
  return value;
}

/**
 * The tool result that tells the model why its respond() call was refused, so it can correct
 * itself. Nothing of the refused call is delivered.
 */
export function respondErrorToolResult(toolUseId: string, issues: readonly RespondIssue[]): ErrorToolResult {
  const lines = issues.map((issue) => `- ${issue.path === '' ? '(input)' : issue.path}: ${issue.message} [${issue.code}]`);
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    is_error: true,
    content: [`Your ${RESPOND_TOOL_NAME} call was refused and nothing was delivered. Fix these and call it again:`, ...lines].join(
      '\n',
    ),
  };
}
