/**
 * An A2UI action sent back by the web chat page: a Button of an `a2ui-surface` part was pressed, and
 * the page posts its event (`action.event.name` and `context`) with the surface it is on. The rules
 * of its fields live here once, for the action route (400 naming the field) and the normaliser
 * (`channel.invalid`).
 */
import { APPROVAL_ACTION_EVENT } from '../../src/protocol/envelope/approval-surface.ts';
import type { UncheckedFields } from '../kit/event-checks.ts';

/** One action as the page posts it to `POST /api/chat/:conversationId/actions`. */
export interface WebAction {
  /** The page's id of this press, 1 to 100 of `A-Za-z0-9_-`: a retried POST repeats it. */
  readonly id: string;
  /** The surface the Button is on (its `createSurface.surfaceId`), 1 to 256 characters. */
  readonly surfaceId: string;
  /** The Button's component id, 1 to 256 characters, when the page names it. */
  readonly sourceComponentId?: string;
  /** The event name, 1 to 100 characters. */
  readonly name: string;
  /** The event context: a JSON object of at most {@link MAX_ACTION_CONTEXT_BYTES}. */
  readonly context: Readonly<Record<string, unknown>>;
}

/** Largest action context accepted, in bytes of its JSON (UTF-8). */
export const MAX_ACTION_CONTEXT_BYTES = 8 * 1024;

/** Deepest nesting of objects and arrays accepted in a context (the context itself is level 1). */
const MAX_CONTEXT_DEPTH = 32;
const MAX_NAME_CHARS = 100;
const MAX_ID_CHARS = 256;
const ACTION_ID = /^[A-Za-z0-9_-]{1,100}$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The first field of an action that breaks its rule, and why, in words for the page's developer. */
export interface WebActionProblem {
  readonly field: 'id' | 'surfaceId' | 'sourceComponentId' | 'name' | 'context';
  readonly message: string;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Why `value` is not JSON data nested at most {@link MAX_CONTEXT_DEPTH} deep, walked without
 * recursion. It may hold at most {@link MAX_ACTION_CONTEXT_BYTES} values (each takes a byte of JSON
 * at least), which also bounds the walk of an object that is not from JSON (shared or cyclic).
 */
function jsonProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  let seen = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    seen += 1;
    if (seen > MAX_ACTION_CONTEXT_BYTES) return `is over ${String(MAX_ACTION_CONTEXT_BYTES)} bytes of JSON`;
    if (item === null || typeof item === 'string' || typeof item === 'boolean') continue;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return 'holds a number JSON cannot carry';
      continue;
    }
    if (!Array.isArray(item) && !isPlainObject(item)) return `holds a ${typeof item}, which is not JSON`;
    if (depth > MAX_CONTEXT_DEPTH) return `is nested deeper than ${String(MAX_CONTEXT_DEPTH)} levels`;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Why `value` cannot be an action's context: not a JSON object, nested too deep, or over
 * {@link MAX_ACTION_CONTEXT_BYTES} as JSON. `undefined` when it can.
 */
function actionContextProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return '"context" must be a JSON object.';
  const problem = jsonProblem(value);
  if (problem !== undefined) return `"context" ${problem}.`;
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > MAX_ACTION_CONTEXT_BYTES
    ? `"context" is ${String(bytes)} bytes of JSON; at most ${String(MAX_ACTION_CONTEXT_BYTES)} are allowed.`
    : undefined;
}

/** Whether `value` may be a surface or component id: 1 to 256 characters, no control character. */
function isBoundedId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_CHARS && !CONTROL.test(value);
}

/** Whether `value` may be an event name: 1 to 100 characters, not blank, no control character. */
function isEventName(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= MAX_NAME_CHARS && !CONTROL.test(value);
}

function refused(field: WebActionProblem['field'], message: string): { readonly problem: WebActionProblem } {
  return { problem: { field, message } };
}

function idRule(field: string): string {
  return `"${field}" must be a string of 1 to ${String(MAX_ID_CHARS)} characters, without control characters.`;
}

/** The outcome of {@link readWebAction}. */
export type WebActionReading = { readonly action: WebAction } | { readonly problem: WebActionProblem };

/**
 * Reads an action from its fields: the first field that breaks its rule (in the order `id`,
 * `surfaceId`, `sourceComponentId`, `name`, `context`), or the {@link WebAction} made of exactly
 * those fields (any other is left out).
 */
export function readWebAction(fields: UncheckedFields): WebActionReading {
  const { id, surfaceId, sourceComponentId, name, context } = fields;
  if (typeof id !== 'string' || !ACTION_ID.test(id)) return refused('id', '"id" must be 1 to 100 characters of A-Z, a-z, 0-9, "_" and "-".');
  if (!isBoundedId(surfaceId)) return refused('surfaceId', idRule('surfaceId'));
  if (sourceComponentId !== undefined && !isBoundedId(sourceComponentId)) return refused('sourceComponentId', idRule('sourceComponentId'));
  if (!isEventName(name)) {
    return refused('name', `"name" must be the event name: 1 to ${String(MAX_NAME_CHARS)} characters, not blank, without control characters.`);
  }
  // The approval card's buttons decide through their own route; as an action they would only tell
  // the model that something was approved when nothing was.
  if (name === APPROVAL_ACTION_EVENT) {
    return refused('name', `"name" "${APPROVAL_ACTION_EVENT}" is the approval card's event, not an action: send it to POST /api/approvals/:approvalId.`);
  }
  const contextProblem = actionContextProblem(context);
  if (contextProblem !== undefined || !isPlainObject(context)) return refused('context', contextProblem ?? '"context" must be a JSON object.');
  return { action: { id, surfaceId, ...(sourceComponentId === undefined ? {} : { sourceComponentId }), name, context } };
}

/** Whether `value` is a {@link WebAction} (every rule of {@link readWebAction} kept). */
export function isWebAction(value: unknown): value is WebAction {
  return isPlainObject(value) && 'action' in readWebAction(value);
}
