/**
 * The WhatsApp channel's renderer: each output to messages ({@link WhatsAppPayload}). Text in
 * WhatsApp's own markup (the kit's WhatsApp dialect), 4,096 characters a message, split at
 * paragraph boundaries; kept artifacts as images or documents; approval requests as reply buttons
 * (Cloud API) or a text with the short code (web), to people who may decide (others read what is
 * awaited); in groups the answer quotes the message it
 * answers. Each message says what to send instead when the window is closed (`templateText`).
 */
import type { RenderInput } from '../channel.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { approvalRequestText } from '../kit/approvals/request-text.ts';
import { checkTimeZone } from '../kit/approvals/time-phrases.ts';
import { approvalUpdateText, type ApprovalTextContext } from '../kit/approvals/update-text.ts';
import { artifactAttachment, type Attachment } from '../kit/render/artifacts.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { APPROVE_TITLE, approvalButtonId, DENY_TITLE } from './approval-buttons.ts';
import { MAX_BUTTON_BODY_CHARS } from './cloud/outbound-limits.ts';
import type { WhatsAppVia } from './whatsapp-event.ts';
import { MAX_TEXT_CHARS, templateLine, type WhatsAppKind, type WhatsAppPayload } from './whatsapp-payload.ts';

/** Options of {@link createWhatsAppRender}. */
export interface WhatsAppRenderOptions {
  /** The transport: `cloud` sends approval requests as reply buttons, `web` as text with the code. */
  readonly via: WhatsAppVia;
  /** The time approval expiries and decisions are told from. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** IANA time zone of clock times in approval messages. Default `UTC`. */
  readonly timeZone?: string;
  /** Per-tool sentences of approval messages (`book flight BA2043 …`). Default none. */
  readonly sentences?: ToolSentences;
}

/** The renderer: one output for one destination to its messages (none when nothing is to be shown). */
export type WhatsAppRender = (input: RenderInput, destination: Destination) => WhatsAppPayload[];

const said = (text: string): Part => ({ text, metadata: { partType: 'response' } });

/** Whether `destination` is a group chat (web mode), where answers quote what they answer. */
const isGroup = (destination: Destination): boolean => destination.address.endsWith('@g.us');

function quoteOf(destination: Destination): { quoteId?: string } {
  const quoteId = destination.thread?.['quoteId'];
  return quoteId !== undefined && isGroup(destination) ? { quoteId } : {};
}

function mediaPayload(file: Attachment & { artifactId: string }, destination: Destination): WhatsAppPayload {
  return {
    kind: 'answer',
    message: { kind: 'media', to: destination.address, artifactId: file.artifactId, name: file.name },
    templateText: templateLine(`A file, ${file.name}, could not be sent: WhatsApp allows files only within 24 hours of your last message. Reply and ask for it again.`),
  };
}

/** Text parts as messages, the first quoting when in a group; kept artifacts as media messages. */
function rendered(parts: readonly Part[], destination: Destination, kind: WhatsAppKind): WhatsAppPayload[] {
  const files: (Attachment & { artifactId: string })[] = [];
  const rest: Part[] = [];
  for (const part of parts) {
    const file = artifactAttachment(part);
    if (file?.artifactId === undefined) rest.push(part);
    else files.push({ ...file, artifactId: file.artifactId });
  }
  const { chunks } = renderForChannel({ format: 'whatsapp', maxChars: MAX_TEXT_CHARS, attachments: false }, rest);
  const texts = chunks.map((text, index): WhatsAppPayload => ({
    kind,
    message: { kind: 'text', to: destination.address, text, ...(index === 0 ? quoteOf(destination) : {}) },
    templateText: templateLine(text),
  }));
  return [...texts, ...files.map((file) => mediaPayload(file, destination))];
}

/**
 * The request: reply buttons (Cloud API) or a text with the code (web). A recipient who may not
 * decide (`mayDecide` false: the requester, when not allowed) gets the text ending in whose
 * approval is awaited, without buttons.
 */
function approvalRequest(record: ApprovalRecord, destination: Destination, via: WhatsAppVia, context: ApprovalTextContext, mayDecide: boolean): WhatsAppPayload {
  const text = approvalRequestText(record, { form: 'short', maxChars: MAX_BUTTON_BODY_CHARS, clock: context.clock, timeZone: context.timeZone, mayDecide, ...(context.sentences === undefined ? {} : { sentences: context.sentences }) });
  if (!mayDecide) return { kind: 'approval-request', message: { kind: 'text', to: destination.address, text }, templateText: templateLine(text) };
  const ids = (['granted', 'denied'] as const).map((decision) => approvalButtonId({ approvalId: record.approvalId, decision, argsHash: record.argsHash }));
  const [approveId = '', denyId = ''] = ids;
  const message = via === 'cloud'
    ? { kind: 'buttons' as const, to: destination.address, body: text, buttons: [{ id: approveId, title: APPROVE_TITLE }, { id: denyId, title: DENY_TITLE }] }
    : { kind: 'text' as const, to: destination.address, text };
  return { kind: 'approval-request', message, templateText: templateLine(text), quickReplies: ids };
}

/**
 * Creates the renderer. An update is not sent to the person who decided from this number (their
 * tap or reply was answered).
 *
 * @example
 * const render = createWhatsAppRender({ via: 'cloud', clock: context.clock });
 * render({ type: 'envelope', turnId, turnState: 'complete', parts }, { channel: 'whatsapp', address: '+447700900123' });
 * @throws SwitchboardError `config.invalid` for an unknown time zone.
 */
export function createWhatsAppRender(options: WhatsAppRenderOptions): WhatsAppRender {
  const context: ApprovalTextContext = {
    clock: options.clock ?? (() => new Date()),
    timeZone: checkTimeZone(options.timeZone ?? 'UTC'),
    ...(options.sentences === undefined ? {} : { sentences: options.sentences }),
  };
  return (input, destination) => {
    switch (input.type) {
      case 'envelope':
        return rendered(input.parts, destination, 'answer');
      case 'part':
        return rendered([input.part], destination, 'answer');
      case 'notice':
        return rendered([said(input.text)], destination, 'notice');
      case 'approval-request':
        return [approvalRequest(input.record, destination, options.via, context, input.mayDecide ?? true)];
      case 'approval-update': {
        const text = approvalUpdateText(input.record, destination, context);
        return text === undefined ? [] : rendered([said(text)], destination, 'approval-update');
      }
      case 'turn':
        return [];
    }
  };
}
