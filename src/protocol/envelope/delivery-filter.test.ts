import { describe, expect, it } from 'vitest';
import { beachExtension } from '../agent-card/beach-extension.ts';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import type { Part } from '../parts/part.ts';
import { filterForTransport, peerTransport } from './delivery-filter.ts';
import type { Transport } from './delivery-filter.ts';

const part = (partType: string, text = partType): Part => ({ text, metadata: { partType } });

const sse: Transport = { id: 'sse', deliveryClass: 'streaming' };
const email: Transport = { id: 'email', deliveryClass: 'buffered' };

function registryWithConsumerTypes() {
  const registry = createPartTypeRegistry();
  registry.register({
    partType: 'ta.itinerary-slot-state',
    deliveryRules: { streaming: 'flush', buffered: 'drop' },
    allowedTransports: ['sse', 'a2a'],
    requiresPeerConsumes: true,
  });
  registry.register({
    partType: 'ta.summary',
    deliveryRules: { streaming: 'flush', buffered: 'render' },
    allowedTransports: ['sse'],
  });
  return registry;
}

describe('filterForTransport', () => {
  const registry = registryWithConsumerTypes();

  it('drops ack, thinking, progress and setState from a buffered transport and keeps the rest in order', () => {
    const parts = ['ack', 'response', 'thinking', 'progress', 'setState', 'domain-data', 'clarify'].map((type) => part(type));
    const result = filterForTransport(parts, email, registry);
    expect(result.parts.map((kept) => kept.metadata.partType)).toEqual(['response', 'domain-data', 'clarify']);
    expect(result.dropped.map((entry) => [entry.part.metadata.partType, entry.reason])).toEqual([
      ['ack', 'delivery-rule'],
      ['thinking', 'delivery-rule'],
      ['progress', 'delivery-rule'],
      ['setState', 'delivery-rule'],
    ]);
  });

  it('flushes ack, thinking and progress to a streaming transport but never setState or inbound-only parts', () => {
    const parts = ['ack', 'thinking', 'progress', 'setState', 'approval-response', 'reasoning-trace'].map((type) => part(type));
    const result = filterForTransport(parts, sse, registry);
    expect(result.parts.map((kept) => kept.metadata.partType)).toEqual(['ack', 'thinking', 'progress']);
    expect(result.dropped.map((entry) => entry.reason)).toEqual(['delivery-rule', 'delivery-rule', 'delivery-rule']);
  });

  it('sends a part with allowedTransports only over a listed transport', () => {
    const summary = part('ta.summary');
    expect(filterForTransport([summary], sse, registry).parts).toEqual([summary]);
    expect(filterForTransport([summary], { id: 'sms', deliveryClass: 'buffered' }, registry).dropped).toEqual([
      { part: summary, reason: 'transport-not-allowed' },
    ]);
    expect(filterForTransport([summary], { id: 'websocket', deliveryClass: 'streaming' }, registry).dropped).toEqual([
      { part: summary, reason: 'transport-not-allowed' },
    ]);
  });

  it('sends a requiresPeerConsumes part to a peer only when its envelopeConsumes lists it', () => {
    const slot = part('ta.itinerary-slot-state');
    const consuming: Transport = { id: 'a2a', deliveryClass: 'streaming', peer: { envelopeConsumes: ['ta.itinerary-slot-state'] } };
    const notConsuming: Transport = { id: 'a2a', deliveryClass: 'streaming', peer: { envelopeConsumes: ['domain-data'] } };
    expect(filterForTransport([slot], consuming, registry).parts).toEqual([slot]);
    expect(filterForTransport([slot], notConsuming, registry).dropped).toEqual([{ part: slot, reason: 'peer-not-consuming' }]);
  });

  it('does not restrict a requiresPeerConsumes part on a non-peer local UI', () => {
    const slot = part('ta.itinerary-slot-state');
    const llm = part('llm-context');
    expect(filterForTransport([slot, llm], sse, registry).parts).toEqual([slot, llm]);
  });

  it('applies requiresPeerConsumes to the canonical llm-context part', () => {
    const llm = part('llm-context');
    const beach = peerTransport('a2a', 'buffered', { capabilities: { extensions: [beachExtension(['llm-context'])] } });
    const nonBeach = peerTransport('a2a', 'buffered', { capabilities: { extensions: [] } });
    expect(beach.peer?.envelopeConsumes).toEqual(['llm-context']);
    expect(nonBeach.peer?.envelopeConsumes).toEqual([]);
    expect(filterForTransport([llm], beach, registry).parts).toEqual([llm]);
    expect(filterForTransport([llm], nonBeach, registry).dropped).toEqual([{ part: llm, reason: 'peer-not-consuming' }]);
  });

  it('drops and reports a part whose type is not registered, on every transport', () => {
    const stray = part('ta.unregistered');
    const malformed = { text: 'x', metadata: {} } as unknown as Part;
    for (const transport of [sse, email]) {
      const result = filterForTransport([part('response'), stray, malformed], transport, registry);
      expect(result.parts.map((kept) => kept.metadata.partType)).toEqual(['response']);
      expect(result.dropped).toEqual([
        { part: stray, reason: 'unknown-part-type' },
        { part: malformed, reason: 'unknown-part-type' },
      ]);
    }
  });

  it('reports the first failing rule: the delivery rule before allowedTransports', () => {
    const slot = part('ta.itinerary-slot-state');
    expect(filterForTransport([slot], email, registry).dropped).toEqual([{ part: slot, reason: 'delivery-rule' }]);
  });
});
