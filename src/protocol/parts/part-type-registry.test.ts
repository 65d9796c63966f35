import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors.ts';
import { CORE_PART_TYPES, ENVELOPE_PART_TYPES, createPartTypeRegistry } from './canonical-part-types.ts';
import { ruleDelivers } from './part.ts';

describe('part-type registry', () => {
  it('holds the five core and ten envelope part types, all canonical', () => {
    const registry = createPartTypeRegistry();
    expect(registry.ids()).toEqual([
      'ack', 'thinking', 'response', 'clarify', 'error',
      'domain-data', 'llm-context', 'a2ui-surface', 'artifact', 'reasoning-trace', 'citation',
      'approval-request', 'approval-response', 'progress', 'setState',
    ]);
    expect(registry.all().every((definition) => definition.isCanonical)).toBe(true);
    expect(CORE_PART_TYPES).toHaveLength(5);
    expect(ENVELOPE_PART_TYPES).toHaveLength(10);
  });

  it.each([
    ['ack', 'flush', 'drop'],
    ['thinking', 'flush', 'drop'],
    ['progress', 'flush', 'drop'],
    ['response', 'stream', 'render'],
    ['domain-data', 'once', 'at-settlement'],
    ['a2ui-surface', 'flush', 'final-state'],
    ['artifact', 'url-reference', 'attachment'],
    ['llm-context', 'at-settlement', 'at-settlement'],
    ['reasoning-trace', 'audit-only', 'audit-only'],
    ['clarify', 'flush', 'flush'],
    ['error', 'flush', 'flush'],
    ['approval-request', 'flush', 'flush'],
    ['approval-response', 'inbound-only', 'inbound-only'],
    ['setState', 'strip', 'strip'],
  ] as const)('gives %s the rules streaming=%s buffered=%s', (partType, streaming, buffered) => {
    expect(createPartTypeRegistry().require(partType).deliveryRules).toEqual({ streaming, buffered });
  });

  it('makes llm-context and a2ui-surface, and only them, wait for a peer that consumes them', () => {
    const restricted = createPartTypeRegistry().all().filter((definition) => definition.requiresPeerConsumes === true);
    expect(restricted.map((definition) => definition.partType)).toEqual(['llm-context', 'a2ui-surface']);
  });

  it('never sends ack, thinking, progress or setState on a buffered transport', () => {
    const registry = createPartTypeRegistry();
    for (const id of ['ack', 'thinking', 'progress', 'setState']) {
      expect(ruleDelivers(registry.require(id).deliveryRules.buffered)).toBe(false);
    }
  });

  it('registers a namespaced consumer part type with its rules and limits', () => {
    const registry = createPartTypeRegistry();
    const definition = registry.register({
      partType: 'ta.itinerary-slot-state',
      deliveryRules: { streaming: 'flush', buffered: 'drop' },
      allowedTransports: ['sse', 'a2a'],
      requiresPeerConsumes: true,
    });
    expect(definition.isCanonical).toBe(false);
    expect(registry.require('ta.itinerary-slot-state').allowedTransports).toEqual(['sse', 'a2a']);
    expect(Object.isFrozen(definition)).toBe(true);
  });

  it.each(['audio', 'TA.thing', 'ta.', '.x', 'ta thing.x', 'ta_x.y'])('refuses the un-namespaced id %j', (id) => {
    const registry = createPartTypeRegistry();
    expect(() => registry.register({ partType: id, deliveryRules: { streaming: 'flush', buffered: 'drop' } })).toThrow(
      expect.objectContaining({ code: 'part_type.invalid_id' }) as Error,
    );
  });

  it('refuses a duplicate id', () => {
    const registry = createPartTypeRegistry();
    const registration = { partType: 'ta.audio', deliveryRules: { streaming: 'flush', buffered: 'drop' } } as const;
    registry.register(registration);
    expect(() => registry.register(registration)).toThrow(SwitchboardError);
    expect(() => registry.register(registration)).toThrow(/already registered/);
  });

  it('names the known ids when an unknown one is required', () => {
    const registry = createPartTypeRegistry();
    try {
      registry.require('nope');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SwitchboardError);
      const coded = error as SwitchboardError;
      expect(coded.code).toBe('part_type.unknown');
      expect(coded.details['known']).toContain('response');
    }
  });
});
