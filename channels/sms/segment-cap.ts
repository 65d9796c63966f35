/**
 * The SMS segment cap: how many segments one message and one whole answer may take, and how an
 * answer over the cap is cut (the parts that fit, renumbered, the last ending with {@link CUT_NOTE}).
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { chunkText } from '../kit/render/chunk.ts';
import { smsSegmentCount } from '../kit/render/sms-segments.ts';

/** Ends the last part of an SMS answer cut to `maxSegments`. */
export const CUT_NOTE = '(Answer shortened: the full answer is too long for SMS.)';

/** Default most SMS segments of one answer, all its parts together. */
const DEFAULT_ANSWER_SEGMENTS = 10;
/** Default most SMS segments of one message, numbering included. */
const DEFAULT_PART_SEGMENTS = 3;
/** Largest `partSegments`: ten GSM-7 segments are 1530 characters, eleven over Twilio's 1600. */
const MAX_PART_SEGMENTS = 10;

/** Most SMS segments of one message (`part`) and of one answer (`answer`). */
export interface SegmentLimits {
  readonly part: number;
  readonly answer: number;
}

/** How many segments were asked for: `maxSegments` (default 10) and `partSegments` (default 3). */
interface AskedSegments {
  readonly maxSegments?: number;
  readonly partSegments?: number;
}

/** `value` when it is an integer from 1 to `most`. @throws SwitchboardError `config.invalid` otherwise. */
function checkedCount(name: string, value: number, most: number): number {
  if (Number.isInteger(value) && value >= 1 && value <= most) return value;
  throw new SwitchboardError('config.invalid', `${name} must be an integer from 1 to ${most}, got ${String(value)}`, { details: { [name]: value } });
}

/**
 * The limits asked for, defaults filled in (10 segments an answer, 3 a message) and the part's never
 * above the answer's.
 *
 * @throws SwitchboardError `config.invalid` for `maxSegments` below 1 or `partSegments` outside 1 to 10.
 */
export function segmentLimitsOf(asked: AskedSegments): SegmentLimits {
  const answer = checkedCount('maxSegments', asked.maxSegments ?? DEFAULT_ANSWER_SEGMENTS, Number.MAX_SAFE_INTEGER);
  const part = checkedCount('partSegments', asked.partSegments ?? DEFAULT_PART_SEGMENTS, MAX_PART_SEGMENTS);
  return { answer, part: Math.min(part, answer) };
}

const segmentsOf = (texts: readonly string[]): number => texts.reduce((sum, text) => sum + smsSegmentCount(text), 0);

/** `(2/5) `, as the kit numbers parts, when there is more than one. */
const partMark = (index: number, count: number): string => (count > 1 ? `(${index + 1}/${count}) ` : '');

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

/** The first `count` of `bodies` renumbered as `count` parts, the last cut and noted; `undefined` when it cannot be. */
function firstPartsNoted(bodies: readonly string[], count: number, limits: SegmentLimits, clean: boolean): string[] | undefined {
  const kept = bodies.slice(0, count - 1).map((body, index) => `${partMark(index, count)}${body}`);
  const budget = Math.min(limits.part, limits.answer - segmentsOf(kept));
  const last = endWithNote(bodies[count - 1] ?? '', partMark(count - 1, count), budget, clean);
  return last === undefined ? undefined : [...kept, last];
}

/**
 * The kit's numbered `chunks` within `limits.answer` segments: the most parts that fit, renumbered,
 * the last cut at a sentence or line end (a word end only when no part has one) and noted; only
 * {@link CUT_NOTE} when nothing fits beside it.
 */
export function capSegments(chunks: readonly string[], limits: SegmentLimits): string[] {
  if (segmentsOf(chunks) <= limits.answer) return [...chunks];
  const bodies = chunks.map((chunk, index) => chunk.slice(partMark(index, chunks.length).length));
  for (const clean of [true, false]) {
    for (let count = Math.min(bodies.length, limits.answer); count >= 1; count -= 1) {
      const noted = firstPartsNoted(bodies, count, limits, clean);
      if (noted !== undefined) return noted;
    }
  }
  return [CUT_NOTE];
}
