/**
 * Cuts one block of rendered text into the largest pieces that fit a limit, preferring line, then
 * sentence, then word boundaries. A word (a URL, a Slack `<url|label>` link) is only cut when it
 * alone exceeds the limit; a fenced code block is cut at line boundaries and each piece re-fenced.
 */

import { SwitchboardError } from '../../../src/protocol/errors.ts';

/** A piece of text and the separator that joins it to the piece before it in the same chunk. */
export interface Unit {
  readonly text: string;
  readonly sep: string;
}

/** Whether a candidate chunk text is within the limit. */
export type Fits = (text: string) => boolean;

/** A word: a run of non-spaces, where a Slack link `<url|label>` counts as one run even with spaces in its label. */
const TOKEN = /(?:<[^<>\s|]+\|[^<>\n]*>|\S)+/g;
const SENTENCE_END = /[.!?…][)\]"'”’*_~]*$/;

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The longest prefixes of `text` that fit, in order, cut between grapheme clusters (an emoji stays whole). */
export function hardSplit(text: string, fits: Fits): string[] {
  const chars = Array.from(GRAPHEMES.segment(text), (part) => part.segment);
  const pieces: string[] = [];
  let from = 0;
  while (from < chars.length) {
    let low = from + 1;
    let high = chars.length;
    if (!fits(chars.slice(from, low).join(''))) {
      throw new SwitchboardError('render.invalid', 'The chunk limit is too small for a single character.', {
        details: { character: chars[from] },
      });
    }
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(chars.slice(from, mid).join(''))) low = mid;
      else high = mid - 1;
    }
    pieces.push(chars.slice(from, low).join(''));
    from = low;
  }
  return pieces;
}

function words(text: string, sep: string, fits: Fits): Unit[] {
  if (fits(text)) return [{ text, sep }];
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const tokens = text.match(TOKEN) ?? [];
  return tokens.flatMap((token, index) => {
    const word = index === 0 ? lead + token : token;
    const joiner = index === 0 ? sep : ' ';
    if (fits(word)) return [{ text: word, sep: joiner }];
    return hardSplit(word, fits).map((piece, at) => ({ text: piece, sep: at === 0 ? joiner : '' }));
  });
}

function line(text: string, sep: string, fits: Fits): Unit[] {
  if (fits(text)) return [{ text, sep }];
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const sentences: string[][] = [[]];
  for (const token of text.match(TOKEN) ?? []) {
    sentences.at(-1)?.push(token);
    if (SENTENCE_END.test(token)) sentences.push([]);
  }
  const joined = sentences.filter((tokens) => tokens.length > 0).map((tokens) => tokens.join(' '));
  return joined.flatMap((sentence, index) => words(index === 0 ? lead + sentence : sentence, index === 0 ? sep : ' ', fits));
}

const isOpeningFence = (text: string): boolean => /^\s*```/.test(text) && !text.trim().slice(3).includes('```');
const isClosingFence = (text: string): boolean => text.trim() === '```';

function fenced(lines: readonly string[], sep: string, fits: Fits): Unit[] {
  const open = lines[0] ?? '```';
  const close = lines.at(-1) ?? '```';
  const wrap = (inner: readonly string[]): string => [open, ...inner, close].join('\n');
  if (!fits(wrap(['x']))) return lines.flatMap((text, index) => line(text, index === 0 ? sep : '\n', fits));
  const pieces: string[] = [];
  let current: string[] = [];
  for (const text of lines.slice(1, -1)) {
    if (fits(wrap([...current, text]))) {
      current.push(text);
      continue;
    }
    if (current.length > 0) pieces.push(wrap(current));
    current = [];
    if (fits(wrap([text]))) current = [text];
    else pieces.push(...hardSplit(text, (part) => fits(wrap([part]))).map((part) => wrap([part])));
  }
  if (current.length > 0 || pieces.length === 0) pieces.push(wrap(current));
  return pieces.map((text, index) => ({ text, sep: index === 0 ? sep : '\n' }));
}

/**
 * `block` as units that each fit: the block itself when it fits; otherwise its fenced code regions
 * (re-fenced per piece) and its lines, lines cut at sentence ends, sentences at spaces, and a word
 * cut by code points only when it alone is over the limit. The first unit carries `sep`.
 *
 * @throws SwitchboardError `render.invalid` when not even one character fits.
 */
export function splitBlock(block: string, sep: string, fits: Fits): Unit[] {
  if (fits(block)) return [{ text: block, sep }];
  const lines = block.split('\n');
  const units: Unit[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const text = lines[index] ?? '';
    const joiner = units.length === 0 ? sep : '\n';
    const closeAt = isOpeningFence(text) ? lines.findIndex((other, at) => at > index && isClosingFence(other)) : -1;
    if (closeAt > index) {
      const region = lines.slice(index, closeAt + 1);
      units.push(...(fits(region.join('\n')) ? [{ text: region.join('\n'), sep: joiner }] : fenced(region, joiner, fits)));
      index = closeAt;
    } else {
      units.push(...line(text, joiner, fits));
    }
  }
  return units;
}
