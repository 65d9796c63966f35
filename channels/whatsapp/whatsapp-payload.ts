/**
 * One outgoing WhatsApp message as the renderer writes it and the sender reads it back from the
 * outbound queue: the message itself, and what to send instead when the contact's 24-hour window
 * is closed (Cloud API), as a plain JSON object.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { WhatsAppOut } from './transport.ts';

/** What a message is. */
export type WhatsAppKind = 'answer' | 'approval-request' | 'approval-update' | 'notice';

/**
 * One rendered message. A type alias (not an interface), so that it is a `ChannelMessage`
 * (`Readonly<Record<string, unknown>>`).
 */
export type WhatsAppPayload = {
  readonly kind: WhatsAppKind;
  readonly message: WhatsAppOut;
  /**
   * The message as one line for a template's `{{1}}` (no new lines, at most 1,024 characters),
   * sent instead when the window is closed.
   */
  readonly templateText: string;
  /** With approval requests: the quick-reply payloads of the approval template (Approve, Deny). */
  readonly quickReplies?: readonly string[];
};

/** Longest text message, in characters. */
export const MAX_TEXT_CHARS = 4096;

/** Longest template parameter, in characters. */
export const MAX_TEMPLATE_PARAM_CHARS = 1024;

const KINDS: ReadonlySet<string> = new Set(['answer', 'approval-request', 'approval-update', 'notice']);
const OUT_KINDS: ReadonlySet<string> = new Set(['text', 'media', 'buttons', 'template']);

/**
 * `text` as one template parameter: line breaks become ` · `, tabs and runs of spaces one space
 * (Meta refuses new lines, tabs and more than four spaces in a row), cut to 1,024 characters.
 */
export function templateLine(text: string): string {
  const line = text.trim().replace(/\s*\n+\s*/g, ' · ').replace(/[\t ]+/g, ' ');
  return line.length <= MAX_TEMPLATE_PARAM_CHARS ? line : `${line.slice(0, MAX_TEMPLATE_PARAM_CHARS - 1)}…`;
}

/**
 * Reads a payload back from the queue.
 *
 * @throws SwitchboardError `channel.invalid` when it is not a {@link WhatsAppPayload}.
 */
export function readWhatsAppPayload(value: unknown): WhatsAppPayload {
  const payload = value as Partial<Record<keyof WhatsAppPayload, unknown>> | null;
  const message = payload?.message as Partial<Record<string, unknown>> | undefined;
  const ok =
    typeof payload?.kind === 'string' && KINDS.has(payload.kind) &&
    typeof payload.templateText === 'string' &&
    typeof message === 'object' && typeof message['kind'] === 'string' && OUT_KINDS.has(message['kind']) &&
    typeof message['to'] === 'string' && message['to'] !== '';
  if (!ok) throw new SwitchboardError('channel.invalid', 'Not a WhatsApp payload.', { details: { channel: 'whatsapp' } });
  return value as WhatsAppPayload;
}
