/**
 * How injections reach the model and the session's event log. A message is the person's text as it
 * is; a `user-action` (a Button pressed on a surface) is a marked block that says so in words and
 * carries the action's context as exact JSON, so the model never takes a press for typed text; any
 * other event is its kind, text and data. Text that is not trusted (see `content-trust.ts`) goes in
 * a block of outside content, labelled with its source and sender (`untrusted-content.ts`).
 */
import { contentOf } from '../content-trust.ts';
import type { Injection, UserActionData } from '../injection.ts';
import type { ModelMessage } from '../model/model-types.ts';
import { markUntrusted } from './untrusted-content.ts';

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The action of a `user-action` injection, or `undefined` when its data is not one. */
function userActionOf(injection: Injection): UserActionData | undefined {
  if (injection.kind !== 'user-action') return undefined;
  const { surfaceId, sourceComponentId, name, context } = injection.data ?? {};
  if (typeof surfaceId !== 'string' || typeof name !== 'string') return undefined;
  if (sourceComponentId !== undefined && typeof sourceComponentId !== 'string') return undefined;
  if (context !== undefined && !isPlainObject(context)) return undefined;
  return { surfaceId, ...(sourceComponentId === undefined ? {} : { sourceComponentId }), name, context: context ?? {} };
}

/**
 * The model's text for a pressed Button. Names are written as JSON strings, so whatever they hold
 * stays visibly quoted.
 *
 * @example
 * // [user-action] The person pressed "book" on surface "flight-results" (component "book-1") in the
 * // chat; they did not type this. Action context (JSON): {"flight":"BA123"}
 */
function actionText(action: UserActionData): string {
  const component = action.sourceComponentId === undefined ? '' : ` (component ${JSON.stringify(action.sourceComponentId)})`;
  return (
    `[user-action] The person pressed ${JSON.stringify(action.name)} on surface ${JSON.stringify(action.surfaceId)}${component} ` +
    `in the chat; they did not type this. Action context (JSON): ${JSON.stringify(action.context)}`
  );
}

/** The model's text for one injection, before any marking. */
function plainText(injection: Injection): string {
  if (injection.kind === 'message') return injection.text;
  const action = userActionOf(injection);
  if (action !== undefined) return actionText(action);
  return `[${injection.kind}] ${injection.text} ${JSON.stringify(injection.data ?? {})}`;
}

/**
 * The model's text for one injection: as it is when trusted, else in a block of outside content
 * labelled with its source, the sender's id and name, and whether the channel verified the sender.
 */
function injectionText(injection: Injection): string {
  const content = contentOf(injection);
  const text = plainText(injection);
  if (content.trusted) return text;
  const { sender } = injection;
  return markUntrusted(text, { source: content.source, sender: sender.id, name: sender.displayName, verified: sender.verified });
}

/** The user message that carries `injections`, one text block each, in order. */
export function injectionMessage(injections: readonly Injection[]): ModelMessage {
  return { role: 'user', content: injections.map((injection) => ({ type: 'text' as const, text: injectionText(injection) })) };
}

/** Longest text of an `injection` log entry, in characters (attachments are listed in the text). */
const LOGGED_TEXT_CHARS = 2000;

/** The sender as the log keeps it: who, and what the channel verified about them. */
function loggedSender(sender: Injection['sender']): Readonly<Record<string, unknown>> {
  return {
    id: sender.id,
    verified: sender.verified,
    ...(sender.displayName === undefined ? {} : { displayName: sender.displayName }),
    ...(sender.personId === undefined ? {} : { personId: sender.personId }),
    ...(sender.basis === undefined ? {} : { basis: sender.basis }),
    ...(sender.agent === true ? { agent: true } : {}),
  };
}

/**
 * The `data` of an injection's `injection` entry in the session's event log: its id, kind,
 * channel, sender (id, whether and how the channel verified them, the person matched), when it was
 * received, its text (at most 2,000 characters; attachments are listed in it) and content (`{
 * source, trusted }` as the runtime acts on it, see `contentOf`), and for a `user-action` the
 * action (`name`, `surfaceId`, `sourceComponentId`, `context`, the context last, so a log that cuts
 * long entries keeps the rest).
 */
export function injectionLogData(injection: Injection): Readonly<Record<string, unknown>> {
  const text = injection.text.length > LOGGED_TEXT_CHARS ? `${injection.text.slice(0, LOGGED_TEXT_CHARS)}…` : injection.text;
  const base = {
    id: injection.id, kind: injection.kind, channel: injection.channel, sender: loggedSender(injection.sender),
    receivedAt: injection.receivedAt, text, content: contentOf(injection),
  };
  const action = userActionOf(injection);
  if (action === undefined) return base;
  const { name, surfaceId, sourceComponentId, context } = action;
  return { ...base, action: { name, surfaceId, ...(sourceComponentId === undefined ? {} : { sourceComponentId }), context } };
}
