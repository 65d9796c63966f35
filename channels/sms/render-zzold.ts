/**
 * The SMS channel's renderer (Twilio): each output to messages ({@link SmsPayload}). `+E.164`
 * addresses get the kit's plain, GSM-7 friendly text in numbered parts; `whatsapp:+E.164` ones the
 * kit's WhatsApp markup, numbered, 1600 characters a message. Artifacts with an id go as media (up
 * to 10 on the first SMS, one a WhatsApp message); those with only a URL become `name: url` lines.
 * Approval requests are one short message, updates one line of outcome.
 */
import type { RenderInput } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { ApprovalRecord } from '../../src/runtime/approvals/approval-types.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { decidedByLabel } from '../../src/runtime/approvals/approval-authority.ts';
import { amountText } from '../kit/approvals/argument-lines.ts';
import { callSummary } from '../kit/approvals/decision-answers.ts';
import type { ToolSentences } from '../kit/approvals/describe-request.ts';
import { approvalRequestText, DEFAULT_SHORT_MAX_CHARS } from '../kit/approvals/request-text.ts';
import { checkTimeZone, clockTimeOf } from '../kit/approvals/time-phrases.ts';
import { artifactAttachment } from '../kit/render/artifacts.ts';
import { normaliseGsm } from '../kit/render/gsm.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { chunkText } from '../kit/render/chunk.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';
import { isWhatsAppAddress, MAX_BODY_CHARS, MAX_MEDIA, smsPayload, smsPayloads, type MediaFile, type SmsKind, type SmsPayload } from './sms-payload.ts';

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

/** Most SMS segments of an approval request with typical arguments. */
const APPROVAL_SEGMENTS = 2;
/** Largest `partSegments`: ten GSM-7 segments are 1530 characters, eleven over Twilio's 1600. */
const MAX_PART_SEGMENTS = 10;
/** Approval request lengths tried in turn, in characters: two GSM-7 segments, two UCS-2, three UCS-2. */
const REQUEST_BUDGETS = [DEFAULT_SHORT_MAX_CHARS, 2 * 67, 3 * 67];

/** Ends the last part of an SMS answer cut to `maxSegments`. */
export const CUT_NOTE = '(Answer shortened: the full answer is too long for SMS.)';

/** Most segments of one message (`part`) and of one answer (`answer`). */
interface SegmentLimits {
  readonly part: number;
  readonly answer: number;
}

interface Context {
  readonly limits: SegmentLimits;
  readonly clock: () => Date;
  readonly timeZone: string;
  readonly sentences?: ToolSentences;
}

interface Media {
  readonly files: MediaFile[];
  /** The parts left to render as text (an artifact with only a URL becomes a link line). */
  readonly rest: Part[];
}

function limitsOf(options: SmsRenderOptions): SegmentLimits {
  const check = (name: string, value: number, most: number): number => {
    if (Number.isInteger(value) && value >= 1 && value <= most) return value;
    throw new SwitchboardError('config.invalid', `${name} must be an integer from 1 to ${most}, got ${String(value)}`, { details: { [name]: value } });
  };
  const answer = check('maxSegments', options.maxSegments ?? 10, Number.MAX_SAFE_INTEGER);
  return { answer, part: Math.min(check('partSegments', options.partSegments ?? 3, MAX_PART_SEGMENTS), answer) };
}

function splitMedia(parts: readonly Part[]): Media {
  const media: Media = { files: [], rest: [] };
  for (const part of parts) {
    const file = artifactAttachment(part);
    if (file?.artifactId !== undefined && media.files.length < MAX_MEDIA) media.files.push({ id: file.artifactId, name: file.name });
    else media.rest.push(part);
  }
  return media;
}

const segmentsOf = (texts: readonly string[]): number => texts.reduce((sum, text) => sum + smsSegmentCount(text), 0);

/** `(2/5) `, as the kit numbers parts, when there is more than one. */
const mark = (index: number, count: number): string => (count > 1 ? `(${index + 1}/${count}) ` : '');

/** Whether `head`, the start of `body`, ends where a sentence, a line or `body` itself does. */
const endsClean = (head: string, body: string): boolean => head === body || /[.!?:]["')]*$/.test(head) || body.startsWith(`${head}\n`);

/**
 * The start of `body` that fits `budget` segments between `prefix` and the note, note added;
 * `undefined` when none does (or, when `clean`, none that ends a sentence or line).
 */
function endWithNote(body: string, prefix: string, budget: number, clean: boolean): string | undefined {
  const countFn = (text: string): number => smsSegmentCount(`${prefix}${text}\n${CUT_NOTE}`);
  if (budget < 1 || countFn('') > budget) return undefined;
  try {
    const [head] = chunkText(body, { maxChars: budget, countFn, numbering: 'none' });
    return head === undefined || (clean && !endsClean(head, body)) ? undefined : `${prefix}${head}\n${CUT_NOTE}`;
  } catch {
    return undefined; // not even the first character fits beside the note
  }
}

/**
 * The kit's numbered `chunks` within `limits.answer` segments: the most parts that fit, renumbered,
 * the last cut at a sentence or line end (a word end only when no part has one) and noted.
 */
function capSegments(chunks: readonly string[], limits: SegmentLimits): string[] {
  if (segmentsOf(chunks) <= limits.answer) return [...chunks];
  const bodies = chunks.map((chunk, index) => chunk.slice(mark(index, chunks.length).length));
  for (const clean of [true, false]) {
    for (let count = Math.min(bodies.length, limits.answer); count >= 1; count -= 1) {
      const kept = bodies.slice(0, count - 1).map((body, index) => `${mark(index, count)}${body}`);
      const last = endWithNote(bodies[count - 1] ?? '', mark(count - 1, count), Math.min(limits.part, limits.answer - segmentsOf(kept)), clean);
      if (last !== undefined) return [...kept, last];
    }
  }
  return [CUT_NOTE];
}

function textChunks(parts: readonly Part[], whatsApp: boolean, limits: SegmentLimits): string[] {
  if (whatsApp) return renderForChannel({ format: 'whatsapp', maxChars: MAX_BODY_CHARS, attachments: false }, parts).chunks;
  return capSegments(renderForChannel({ format: 'plain', maxSegments: limits.part, gsm: true, attachments: false }, parts).chunks, limits);
}

function rendered(parts: readonly Part[], destination: Destination, kind: SmsKind, context: Context): SmsPayload[] {
  const { files, rest } = splitMedia(parts);
  return smsPayloads(destination.address, kind, textChunks(rest, isWhatsAppAddress(destination.address), context.limits), files);
}

/**
 * The kit's short request. On SMS GSM-normalised, in two segments (306 GSM-7 characters, else 134
 * UCS-2 ones) while that keeps the amount; else in three UCS-2 segments, so the amount is never cut.
 */
function requestBody(record: ApprovalRecord, whatsApp: boolean, context: Context): string {
  const describe = { form: 'short', clock: context.clock, timeZone: context.timeZone, ...(context.sentences === undefined ? {} : { sentences: context.sentences }) } as const;
  if (whatsApp) return approvalRequestText(record, describe);
  const amount = amountText(record.args);
  let text = '';
  for (const maxChars of REQUEST_BUDGETS) {
    text = normaliseGsm(approvalRequestText(record, { ...describe, maxChars }));
    if (smsSegmentCount(text) <= APPROVAL_SEGMENTS && (amount === undefined || text.includes(amount))) break;
  }
  return text;
}

/** `Approval K7QX2M was approved by grace at 10:05 UTC: book_flight (GBP 374.00).`; nothing while pending or for the decider. */
function updateText(record: ApprovalRecord, destination: Destination, context: Context): string | undefined {
  const by = record.decidedBy;
  if (record.status === 'pending' || (by?.channel === destination.channel && by.address === destination.address)) return undefined;
  const who = decidedByLabel(record);
  const outcome = record.status === 'expired' ? 'expired without a decision' : `was ${record.status === 'granted' ? 'approved' : 'denied'}${who === undefined ? '' : ` by ${who}`}`;
  const at = clockTimeOf(record.decidedAt ?? record.expiresAt, context.clock(), context.timeZone);
  const after = `${record.status === 'granted' ? '' : ' It will not be done.'}${record.reason === undefined ? '' : ` Reason: ${record.reason}`}`;
  return `Approval ${record.shortCode} ${outcome} at ${at}: ${callSummary(record, context.sentences)}.${after}`;
}

const said = (text: string): Part => ({ text, metadata: { partType: 'response' } });

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
  const context: Context = {
    limits: limitsOf(options),
    clock: options.clock ?? (() => new Date()),
    timeZone: checkTimeZone(options.timeZone ?? 'UTC'),
    ...(options.sentences === undefined ? {} : { sentences: options.sentences }),
  };
  return (input, destination) => {
    switch (input.type) {
      case 'envelope':
        return rendered(input.parts, destination, 'answer', context);
      case 'part':
        return rendered([input.part], destination, 'answer', context);
      case 'notice':
        return rendered([said(input.text)], destination, 'notice', context);
      case 'approval-request':
        return [smsPayload(destination.address, 'approval-request', requestBody(input.record, isWhatsAppAddress(destination.address), context))];
      case 'approval-update': {
        const text = updateText(input.record, destination, context);
        return text === undefined ? [] : rendered([said(text)], destination, 'approval-update', context);
      }
      case 'turn':
        return [];
    }
  };
}
