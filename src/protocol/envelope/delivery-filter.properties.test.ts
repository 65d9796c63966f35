import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CORE_PART_TYPES, ENVELOPE_PART_TYPES, createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import type { BufferedDelivery, Part, StreamingDelivery } from '../parts/part.ts';
import type { PartTypeRegistration } from '../parts/part-type-registry.ts';
import { filterForTransport } from './delivery-filter.ts';
import type { Transport } from './delivery-filter.ts';

// The oracle below is written from the rules as specified, independently of the implementation.
const NOT_SENT = new Set(['drop', 'strip', 'audit-only', 'inbound-only']);
const STREAMING: readonly StreamingDelivery[] = [
  'flush',
  'stream',
  'once',
  'at-settlement',
  'url-reference',
  'audit-only',
  'inbound-only',
  'strip',
];
const BUFFERED: readonly BufferedDelivery[] = [
  'flush',
  'render',
  'at-settlement',
  'final-state',
  'attachment',
  'drop',
  'audit-only',
  'inbound-only',
  'strip',
];
const TRANSPORT_IDS = ['sse', 'websocket', 'email', 'sms', 'a2a', 'mcp', 'webhook'] as const;
const CANONICAL = [...CORE_PART_TYPES, ...ENVELOPE_PART_TYPES];
const CONSUMER_IDS = ['ta.itinerary-slot-state', 'ta.timeline', 'baxter.task-board', 'acme.map-pin', 'acme.audio', 'x.y'];
const UNREGISTERED_IDS = ['ghost.part', 'made-up'];
const ALL_IDS = [...CANONICAL.map((definition) => definition.partType), ...CONSUMER_IDS, ...UNREGISTERED_IDS];

const consumerDefinition = fc
  .record({
    partType: fc.constantFrom(...CONSUMER_IDS),
    streaming: fc.constantFrom(...STREAMING),
    buffered: fc.constantFrom(...BUFFERED),
    allowedTransports: fc.option(fc.subarray([...TRANSPORT_IDS]), { nil: undefined }),
    requiresPeerConsumes: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((generated): PartTypeRegistration => ({
    partType: generated.partType,
    deliveryRules: { streaming: generated.streaming, buffered: generated.buffered },
    ...(generated.allowedTransports === undefined ? {} : { allowedTransports: generated.allowedTransports }),
    ...(generated.requiresPeerConsumes === undefined ? {} : { requiresPeerConsumes: generated.requiresPeerConsumes }),
  }));

const consumerDefinitions = fc.uniqueArray(consumerDefinition, { selector: (definition) => definition.partType, maxLength: CONSUMER_IDS.length });

const parts = fc.array(
  fc.record({ partType: fc.constantFrom(...ALL_IDS), text: fc.string({ maxLength: 8 }) }).map(
    (generated): Part => ({ text: generated.text, metadata: { partType: generated.partType } }),
  ),
  { maxLength: 40 },
);

const transport = fc
  .record({
    id: fc.constantFrom(...TRANSPORT_IDS),
    deliveryClass: fc.constantFrom('streaming' as const, 'buffered' as const),
    peer: fc.option(fc.record({ envelopeConsumes: fc.subarray(ALL_IDS) }), { nil: undefined }),
  })
  .map((generated): Transport => ({
    id: generated.id,
    deliveryClass: generated.deliveryClass,
    ...(generated.peer === undefined ? {} : { peer: generated.peer }),
  }));

function oracle(definitions: ReadonlyMap<string, Omit<PartTypeRegistration, 'description'>>, target: Transport) {
  return (part: Part): boolean => {
    const definition = definitions.get(part.metadata.partType);
    if (definition === undefined) return false;
    const rule = target.deliveryClass === 'streaming' ? definition.deliveryRules.streaming : definition.deliveryRules.buffered;
    if (NOT_SENT.has(rule)) return false;
    if (definition.allowedTransports !== undefined && !definition.allowedTransports.includes(target.id)) return false;
    if (definition.requiresPeerConsumes === true && target.peer !== undefined) {
      return target.peer.envelopeConsumes.includes(part.metadata.partType);
    }
    return true;
  };
}

function isSubsequence<T>(sub: readonly T[], of: readonly T[]): boolean {
  let at = 0;
  for (const item of of) if (at < sub.length && sub[at] === item) at += 1;
  return at === sub.length;
}

describe('filterForTransport (properties)', () => {
  it('keeps exactly the parts the rules keep, in input order, and reports every other part', () => {
    fc.assert(
      fc.property(consumerDefinitions, parts, transport, (consumers, input, target) => {
        const registry = createPartTypeRegistry();
        for (const definition of consumers) registry.register(definition);
        const definitions = new Map([...CANONICAL, ...consumers].map((definition) => [definition.partType, definition]));
        const expected = input.filter(oracle(definitions, target));

        const result = filterForTransport(input, target, registry);

        // Order kept: the output is a subsequence of the input, and so is the dropped list.
        expect(isSubsequence(result.parts, input)).toBe(true);
        expect(isSubsequence(result.dropped.map((entry) => entry.part), input)).toBe(true);
        // Nothing dropped that the rules keep, nothing kept that they drop.
        expect(result.parts).toHaveLength(expected.length);
        result.parts.forEach((kept, index) => {
          expect(kept).toBe(expected[index]);
        });
        // Every part is accounted for exactly once.
        expect(result.parts.length + result.dropped.length).toBe(input.length);
        // Unregistered types are dropped with that reason, and only they.
        for (const entry of result.dropped) {
          expect(entry.reason === 'unknown-part-type').toBe(!registry.has(entry.part.metadata.partType));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never lets a buffered transport carry ack, thinking, progress or setState', () => {
    fc.assert(
      fc.property(consumerDefinitions, parts, transport, (consumers, input, target) => {
        const registry = createPartTypeRegistry();
        for (const definition of consumers) registry.register(definition);
        const result = filterForTransport(input, { ...target, deliveryClass: 'buffered' }, registry);
        const kept = result.parts.map((part) => part.metadata.partType);
        for (const never of ['ack', 'thinking', 'progress', 'setState']) expect(kept).not.toContain(never);
      }),
      { numRuns: 300 },
    );
  });

  it('lets a part with allowedTransports through only on a listed transport', () => {
    fc.assert(
      fc.property(consumerDefinitions, parts, transport, (consumers, input, target) => {
        const registry = createPartTypeRegistry();
        for (const definition of consumers) registry.register(definition);
        for (const part of filterForTransport(input, target, registry).parts) {
          const allowed = registry.get(part.metadata.partType)?.allowedTransports;
          if (allowed !== undefined) expect(allowed).toContain(target.id);
        }
      }),
      { numRuns: 300 },
    );
  });
});
