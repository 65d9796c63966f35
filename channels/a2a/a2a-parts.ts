/**
 * Envelope parts and A2A v1.0 message parts, both ways. An envelope part keeps its `partType` (and
 * every other metadata key) in the A2A part's `metadata`, so a peer that knows the Beach envelope
 * reads it back unchanged, and one that does not still gets plain text and data parts.
 */
import type { Part as A2aPart } from '@a2a-js/sdk';
import type { Part } from '../../src/protocol/parts/part.ts';

/** The A2A form of an envelope part: text as `text/plain`, data as `application/json`. */
export function toA2aPart(part: Part): A2aPart {
  const metadata = { ...part.metadata };
  if (part.data !== undefined) {
    // A part with both carries its text in metadata, so neither is lost.
    const withText = part.text === undefined ? metadata : { ...metadata, text: part.text };
    return { content: { $case: 'data', value: { ...part.data } }, mediaType: 'application/json', filename: '', metadata: withText };
  }
  return { content: { $case: 'text', value: part.text ?? '' }, mediaType: 'text/plain', filename: '', metadata };
}

/**
 * The envelope part an A2A part carries: its `metadata.partType` when it names one (a type we do
 * not know is kept as it is; the delivery rules ignore it later), otherwise `response` for text and
 * `domain-data` for data. A data part's string `metadata.text` (a part with both, see
 * {@link toA2aPart}) becomes its text again. Raw bytes and URLs become a text line naming the file.
 */
export function fromA2aPart(part: A2aPart): Part {
  const given: unknown = part.metadata?.['partType'];
  const metadata = { ...(part.metadata ?? {}) };
  const content = part.content;
  if (content?.$case === 'data') {
    const data = typeof content.value === 'object' && content.value !== null && !Array.isArray(content.value) ? (content.value as Record<string, unknown>) : { value: content.value as unknown };
    // A part with both (see toA2aPart) carries its text in metadata: it comes back as the text.
    const { text, ...rest } = metadata;
    if (typeof text === 'string') return { text, data, metadata: { ...rest, partType: typeof given === 'string' ? given : 'domain-data' } };
    return { data, metadata: { ...metadata, partType: typeof given === 'string' ? given : 'domain-data' } };
  }
  const text = content?.$case === 'text' ? content.value : fileLine(part);
  return { text, metadata: { ...metadata, partType: typeof given === 'string' ? given : 'response' } };
}

function fileLine(part: A2aPart): string {
  const name = part.filename === '' ? 'a file' : `the file "${part.filename}"`;
  if (part.content?.$case === 'url') return `[${name} at ${part.content.value}]`;
  if (part.content?.$case === 'raw') return `[${name}, ${String(part.content.value.length)} bytes, ${part.mediaType || 'unknown type'}]`;
  return '';
}

/** The text a person (or a peer's model) wrote in a message: its text parts, then data parts as JSON. */
export function messageText(parts: readonly A2aPart[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (content?.$case === 'text') return content.value;
      if (content?.$case === 'data') return JSON.stringify(content.value);
      return fileLine(part);
    })
    .filter((line) => line !== '')
    .join('\n\n');
}
