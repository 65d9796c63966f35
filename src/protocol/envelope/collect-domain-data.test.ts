import { describe, expect, it } from 'vitest';
import type { Part } from '../parts/part.ts';
import { collectDomainData, deepMergeJson, mergeDomainData } from './collect-domain-data.ts';
import type { DataBearingEvent } from './envelope.ts';

const flightsA: DataBearingEvent = { kind: 'flight-results', data: { flights: ['BA2043'], route: { from: 'LGW' } }, source: 'search_flights' };
const flightsB: DataBearingEvent = { kind: 'flight-results', data: { flights: ['EJ4521'], route: { to: 'CFU' } } };
const hotels: DataBearingEvent = { kind: 'hotel-results', data: { hotels: ['Corfu Palace'] } };

function domainDataPart(data: Record<string, unknown>): Part {
  return { data, metadata: { partType: 'domain-data' } };
}

describe('collectDomainData', () => {
  it('returns undefined when nothing carries data', () => {
    expect(collectDomainData({})).toBeUndefined();
    expect(collectDomainData({ events: [], parts: [{ text: 'no data', metadata: { partType: 'domain-data' } }] })).toBeUndefined();
  });

  it('keys events by kind in one domain-data part', () => {
    const part = collectDomainData({ events: [flightsA, hotels] });
    expect(part).toEqual({
      data: { 'flight-results': flightsA.data, 'hotel-results': hotels.data },
      metadata: { partType: 'domain-data', mergeStrategy: 'replace' },
    });
  });

  it('replace: the last contribution of a kind wins', () => {
    const part = collectDomainData({ events: [flightsA, hotels, flightsB], mergeStrategy: 'replace' });
    expect(part?.data).toEqual({ 'flight-results': flightsB.data, 'hotel-results': hotels.data });
    expect(Object.keys(part?.data ?? {})).toEqual(['flight-results', 'hotel-results']);
  });

  it('append: every kind holds the list of its contributions, in order', () => {
    const part = collectDomainData({ events: [flightsA, hotels, flightsB], mergeStrategy: 'append' });
    expect(part?.data).toEqual({ 'flight-results': [flightsA.data, flightsB.data], 'hotel-results': [hotels.data] });
    expect(part?.metadata.mergeStrategy).toBe('append');
  });

  it('append: a contributed list is concatenated element by element', () => {
    const part = collectDomainData({
      parts: [domainDataPart({ offers: [1, 2] }), domainDataPart({ offers: [3] }), domainDataPart({ offers: 4 })],
      mergeStrategy: 'append',
    });
    expect(part?.data).toEqual({ offers: [1, 2, 3, 4] });
  });

  it('deep-merge: objects merge recursively, other values are replaced', () => {
    const part = collectDomainData({ events: [flightsA, flightsB], mergeStrategy: 'deep-merge' });
    expect(part?.data).toEqual({ 'flight-results': { flights: ['EJ4521'], route: { from: 'LGW', to: 'CFU' } } });
  });

  it('folds events first, then the actor parts, so the actor has the last word under replace', () => {
    const part = collectDomainData({
      events: [flightsA],
      parts: [domainDataPart({ 'flight-results': { flights: [] } })],
    });
    expect(part?.data).toEqual({ 'flight-results': { flights: [] } });
  });

  it('reads a domain-data part as already keyed by kind, and keys other data-bearing parts by part type', () => {
    const part = collectDomainData({
      parts: [domainDataPart({ weather: { c: 21 } }), { data: { slots: 2 }, metadata: { partType: 'ta.itinerary' } }],
    });
    expect(part?.data).toEqual({ weather: { c: 21 }, 'ta.itinerary': { slots: 2 } });
  });

  it('stamps slotKey only when given, and mergeStrategy always', () => {
    expect(collectDomainData({ events: [hotels] })?.metadata).toEqual({ partType: 'domain-data', mergeStrategy: 'replace' });
    expect(collectDomainData({ events: [hotels], slotKey: 'ta.research-rome', mergeStrategy: 'deep-merge' })?.metadata).toEqual({
      partType: 'domain-data',
      mergeStrategy: 'deep-merge',
      slotKey: 'ta.research-rome',
    });
  });

  it('refuses an event without kind or with non-object data', () => {
    expect(() => collectDomainData({ events: [{ kind: '', data: {} }] })).toThrow(
      expect.objectContaining({ code: 'envelope.invalid' }),
    );
    expect(() => collectDomainData({ events: [{ kind: 'list', data: [1, 2] }] })).toThrow(
      expect.objectContaining({ code: 'envelope.invalid' }),
    );
  });

  it('does not change its inputs', () => {
    const events = structuredClone([flightsA, flightsB]);
    collectDomainData({ events, mergeStrategy: 'deep-merge' });
    collectDomainData({ events, mergeStrategy: 'append' });
    expect(events).toEqual([flightsA, flightsB]);
  });
});

describe('mergeDomainData and deepMergeJson', () => {
  it('keep a "__proto__" key as plain data', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    for (const strategy of ['replace', 'append', 'deep-merge'] as const) {
      const merged = mergeDomainData({}, hostile, strategy);
      expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
      expect(Object.keys(merged)).toEqual(['__proto__']);
    }
    const deep = deepMergeJson({ a: {} }, JSON.parse('{"a": {"__proto__": {"x": 1}}}')) as { a: object };
    expect(Object.getPrototypeOf(deep.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('deepMergeJson replaces arrays and scalars, merges objects', () => {
    expect(deepMergeJson({ a: [1], b: { c: 1, d: 2 } }, { a: [2], b: { d: 3 } })).toEqual({ a: [2], b: { c: 1, d: 3 } });
    expect(deepMergeJson({ a: 1 }, null)).toBeNull();
  });
});
