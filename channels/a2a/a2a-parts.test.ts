import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/protocol/parts/part.ts';
import { fromA2aPart, toA2aPart } from './a2a-parts.ts';

describe('toA2aPart and fromA2aPart', () => {
  it('round-trips a part with both text and data: the text comes back as text, not in metadata', () => {
    const part: Part = { text: 'Two hotels.', data: { hotels: 2 }, metadata: { partType: 'domain-data' } };
    const a2a = toA2aPart(part);
    expect(a2a.content).toEqual({ $case: 'data', value: { hotels: 2 } });
    expect(a2a.metadata).toEqual({ partType: 'domain-data', text: 'Two hotels.' });
    expect(fromA2aPart(a2a)).toEqual(part);
  });

  it('round-trips text-only and data-only parts', () => {
    const text: Part = { text: 'Hello.', metadata: { partType: 'response' } };
    const data: Part = { data: { a: 1 }, metadata: { partType: 'domain-data' } };
    expect(fromA2aPart(toA2aPart(text))).toEqual(text);
    expect(fromA2aPart(toA2aPart(data))).toEqual(data);
  });

  it('leaves a non-string metadata.text of a data part in metadata', () => {
    const part = fromA2aPart({ content: { $case: 'data', value: { a: 1 } }, mediaType: 'application/json', filename: '', metadata: { text: 42 } });
    expect(part).toEqual({ data: { a: 1 }, metadata: { text: 42, partType: 'domain-data' } });
  });
});
