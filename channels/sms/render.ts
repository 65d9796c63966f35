/**
 * The SMS channel's renderer (Twilio): each output to messages ({@link SmsPayload}). `+E.164`
 * addresses get the kit's plain, GSM-7 friendly text in numbered parts; `whatsapp:+E.164` ones the
 * kit's WhatsApp markup, numbered, 1600 characters a message. Artifacts with an id go as media (up
 * to 10 on the first SMS, one a WhatsApp message); those with only a URL become `name: url` lines.
 * Approval requests are one short message, updates one line of outcome.
 *
 * The pieces: the segment cap and its cut note (`segment-cap.ts`) and the approval texts
 * (`render-approval.ts`).
 */
import type { RenderInput } from '../channel.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { checkTimeZone } from '../kit/approvals/time-phrases.ts';
import { artifactAttachment } from '../kit/render/artifacts.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { approvalUpdateText, type ApprovalTextContext } from '../kit/approvals/update-text.ts';
import { approvalRequestBody } from './render-approval.ts';
import { capSegments, segmentLimitsOf, type SegmentLimits } from './segment-cap.ts';
import { isWhatsAppAddress, MAX_BODY_CHARS, MAX_MEDIA, smsPayload, smsPayloads, type MediaFile, type SmsKind, type SmsPayload } from './sms-payload.ts';

export { CUT_NOTE } from './segment-cap.ts';

/** Options of {@link createSmsRender}. */
export interface SmsRenderOptions {
  /** Most SMS segments of one answer, notice or update, all its parts together. Default 10. */
  readonly maxSegments?: number;
  /** Most SMS segments of one message, numbering included: 1 to 10 (Twilio takes 1600 characters). Default 3; never above `maxSegments`. */
  readonly partSegments?: number;
  /** The time approval expiries and decisions are told from. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** IANA time zone of clock times in approval messages. Default `UTC`. */
  readonly timeZone?: string;
  /** Per-tool sentences of approval messages (`book flight BA2043 …`). Default none. */
  readonly sentences?: ToolSentences;
}

/** The renderer: one output for one destination to its messages (none when nothing is to be shown). */
export type SmsRender = (input: RenderInput, destination: Destination) => SmsPayload[];

interface Context extends ApprovalTextContext {
  readonly limits: SegmentLimits;
}

interface Media {
  readonly files: MediaFile[];
  /** The parts left to render as text (an artifact with only a URL becomes a link line). */
  readonly rest: Part[];
}

/** Artifacts with an id as media, at most {@link MAX_MEDIA}; every other part left as text. */
function splitMedia(parts: readonly Part[]): Media {
  const media: Media = { files: [], rest: [] };
  for (const part of parts) {
    const file = artifactAttachment(part);
    if (file?.artifactId !== undefined && media.files.length < MAX_MEDIA) media.files.push({ id: file.artifactId, name: file.name });
    else media.rest.push(part);
  }
  return media;
}

/** WhatsApp markup in 1600-character messages, or plain GSM-friendly SMS parts capped to `limits`. */
function textChunks(parts: readonly Part[], whatsApp: boolean, limits: SegmentLimits): string[] {
  if (whatsApp) return renderForChannel({ format: 'whatsapp', maxChars: MAX_BODY_CHARS, attachments: false }, parts).chunks;
  return capSegments(renderForChannel({ format: 'plain', maxSegments: limits.part, gsm: true, attachments: false }, parts).chunks, limits);
}

function rendered(parts: readonly Part[], destination: Destination, kind: SmsKind, context: Context): SmsPayload[] {
  const { files, rest } = splitMedia(parts);
  return smsPayloads(destination.address, kind, textChunks(rest, isWhatsAppAddress(destination.address), context.limits), files);
}

const said = (text: string): Part => ({ text, metadata: { partType: 'response' } });

function contextOf(options: SmsRenderOptions): Context {
  return {
    limits: segmentLimitsOf(options),
    clock: options.clock ?? (() => new Date()),
    timeZone: checkTimeZone(options.timeZone ?? 'UTC'),
    ...(options.sentences === undefined ? {} : { sentences: options.sentences }),
  };
}

/**
 * Creates the renderer. An SMS answer over `maxSegments` keeps the parts that fit, renumbered, the
 * last ending with `CUT_NOTE`; WhatsApp answers are not capped. An approval request fits two
 * segments for typical arguments (whatever `partSegments`); an update is not sent to the person
 * who decided from this address (their reply was answered).
 *
 * @example
 * const render = createSmsRender({ clock: context.clock });
 * render({ type: 'envelope', turnId, turnState: 'complete', parts }, { channel: 'sms', address: '+447700900123' });
 * @throws SwitchboardError `config.invalid` for limits out of range or an unknown time zone.
 */
export function createSmsRender(options: SmsRenderOptions = {}): SmsRender {
  const context = contextOf(options);
  return (input, destination) => {
    switch (input.type) {
      case 'envelope':
        return rendered(input.parts, destination, 'answer', context);
      case 'part':
        return rendered([input.part], destination, 'answer', context);
      case 'notice':
        return rendered([said(input.text)], destination, 'notice', context);
      case 'approval-request':
        return [smsPayload(destination.address, 'approval-request', approvalRequestBody(input.record, isWhatsAppAddress(destination.address), context, input.mayDecide ?? true))];
      case 'approval-update': {
        const text = approvalUpdateText(input.record, destination, context);
        return text === undefined ? [] : rendered([said(text)], destination, 'approval-update', context);
      }
      case 'turn':
        return [];
    }
  };
}
