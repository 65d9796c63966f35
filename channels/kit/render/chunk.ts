/**
 * Splits rendered text into numbered chunks that each fit a channel's limit: at paragraph
 * boundaries first, then lines, sentences and words; never inside a URL or a fenced code block
 * unless that alone is over the limit (see `splitBlock`).
 */

import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { Fits, Unit } from './split-units.ts';
import { splitBlock } from './split-units.ts';

/**
 * Where the part number goes when there is more than one chunk: `prefix` writes `(1/3) ` before the
 * text (on its own line when the chunk starts with a code fence or a `>` quote line), `suffix`
 * writes ` (1/3)` after it (on its own line when the chunk ends with a code fence); `none` writes
 * nothing.
 */
export type Numbering = 'prefix' | 'suffix' | 'none';

/** Options of {@link chunkText} and {@link chunkBlocks}. */
export interface ChunkOptions {
  /**
   * Largest chunk, numbering included, in the units `countFn` counts: characters (UTF-16 code
   * units) by default, SMS segments with `smsSegmentCount`. A positive integer.
   */
  readonly maxChars: number;
  /** Size of a text in the units of `maxChars`. Must not count a part of a text as more than the whole. Default `text.length`. */
  readonly countFn?: (text: string) => number;
  /** Default `prefix`. */
  readonly numbering?: Numbering;
}

function label(text: string, index: number, total: number, numbering: Numbering): string {
  const mark = `(${index}/${total})`;
  if (numbering === 'prefix') return `${mark}${/^(?:```|>)/.test(text) ? '\n' : ' '}${text}`;
  if (numbering === 'suffix') return `${text}${text.endsWith('```') ? '\n' : ' '}${mark}`;
  return text;
}

function pack(units: readonly Unit[], fits: Fits): string[] {
  const chunks: string[] = [];
  let current: string | undefined;
  for (const unit of units) {
    const joined = current === undefined ? unit.text : `${current}${unit.sep}${unit.text}`;
    if (current === undefined || fits(joined)) current = joined;
    else {
      chunks.push(current);
      current = unit.text;
    }
  }
  if (current !== undefined) chunks.push(current);
  return chunks;
}

const digits = (value: number): number => String(value).length;

/**
 * Chunks of already separated blocks (e.g. a renderer's top-level blocks), joined with a blank
 * line inside a chunk. Blocks that are blank are skipped; no blocks give no chunks. With more than
 * one chunk each is numbered, and the number counts toward the limit.
 *
 * @throws SwitchboardError `render.invalid` when `maxChars` is not a positive integer or too small
 *   for one character plus the numbering.
 */
export function chunkBlocks(blocks: readonly string[], options: ChunkOptions): string[] {
  const { maxChars } = options;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new SwitchboardError('render.invalid', 'maxChars must be a positive integer.', { details: { maxChars } });
  }
  const count = options.countFn ?? ((text: string) => text.length);
  const numbering = options.numbering ?? 'prefix';
  const kept = blocks.filter((block) => block.trim() !== '');
  const attempt = (total: number): string[] => {
    const fits: Fits = (text) => count(total > 1 ? label(text, total, total, numbering) : text) <= maxChars;
    return pack(kept.flatMap((block, index) => splitBlock(block, index === 0 ? '' : '\n\n', fits)), fits);
  };
  let chunks = attempt(1);
  if (chunks.length <= 1 || numbering === 'none') return chunks;
  let total = chunks.length;
  for (;;) {
    chunks = attempt(total);
    if (digits(chunks.length) <= digits(total)) break;
    total = chunks.length;
  }
  if (chunks.length === 1) return chunks;
  return chunks.map((chunk, index) => label(chunk, index + 1, chunks.length, numbering));
}

/** The blocks of `text`: runs of lines separated by blank lines, a fenced code block kept whole. */
export function splitParagraphs(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) inFence = inFence ? line.trim() !== '```' : !line.trim().slice(3).includes('```');
    if (!inFence && line.trim() === '') {
      if (current.length > 0) blocks.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) blocks.push(current.join('\n'));
  return blocks;
}

/**
 * `text` in chunks of at most `maxChars` (in `countFn` units), split at paragraph boundaries,
 * then line, sentence and word boundaries; a URL or other word is cut only when it alone is over
 * the limit, and a fenced code block over the limit is cut at line boundaries and re-fenced.
 * More than one chunk are numbered (`(1/3) ` by default), the number included in the limit.
 *
 * @example
 * chunkText(longAnswer, { maxChars: 4096 });                                      // WhatsApp
 * chunkText(smsText, { maxChars: 3, countFn: smsSegmentCount, numbering: 'suffix' }); // SMS, 3 segments each
 */
export function chunkText(text: string, options: ChunkOptions): string[] {
  return chunkBlocks(splitParagraphs(text), options);
}
