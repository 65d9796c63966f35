import { describe, expect, it, vi } from 'vitest';
import { A2UI_VERSION, BASIC_CATALOG_ID } from '../../protocol/envelope/a2ui.ts';
import type { SurfaceTemplate } from '../../protocol/envelope/a2ui.ts';
import type { Transport } from '../../protocol/envelope/delivery-filter.ts';
import { cacheTranslationsByTurn } from '../../protocol/envelope/llm-context.ts';
import type { LlmContextInput, LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import { createSurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { EventLogEntry } from '../session/event-log.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import { createSettlement } from './settle-turn.ts';

const partTypes = createPartTypeRegistry();

const flightTemplate: SurfaceTemplate = (data, context) => ({
  version: A2UI_VERSION,
  createSurface: { surfaceId: context.surfaceId, catalogId: BASIC_CATALOG_ID, sendDataModel: true },
  updateDataModel: { surfaceId: context.surfaceId, path: '/', value: data },
  updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: { path: '/flights/0' } }] },
});

function record(channel: string): TurnRecord {
  return {
    turnId: 'turn_1', sessionId: 'ses_1', actor: 'concierge', startedAt: '', deadlineAt: '', step: 1, corrective: 0, handoffs: 0, given: 1,
    messages: [], status: 'running',
    emitted: [{ partId: 'turn_1.1.0.0', part: { text: 'Two flights, EasyJet cheaper.', metadata: { partType: 'response' } }, turnState: 'complete', actor: 'concierge' }],
    dataEvents: [{ kind: 'flight-results', data: { flights: ['EJ4521', 'BA2043'] }, source: 'search_flights' }],
    replyTo: { channel, address: 'ctx_1' },
  };
}

/** The settlement's clock: a time the tests move forward. */
let now = new Date('2026-11-22T10:00:00.000Z');

function settlementWith(translator: LlmContextTranslator) {
  const surfaces = createSurfaceTemplateRegistry();
  surfaces.register('flight-results', flightTemplate);
  return createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces, translator, clock: () => now });
}

function translatorReturning(prose: string) {
  const translate = vi.fn((_input: LlmContextInput) => Promise.resolve(prose));
  return { translator: { translate } satisfies LlmContextTranslator, translate };
}

const peer = (envelopeConsumes: string[], deliveryClass: 'streaming' | 'buffered' = 'buffered'): Transport =>
  ({ id: 'a2a', deliveryClass, peer: { envelopeConsumes } });

const types = (settlement: { parts: readonly { part: { metadata: { partType: string } } }[] }) =>
  settlement.parts.map(({ part }) => part.metadata.partType);

describe('the settlement for peers', () => {
  it('makes llm-context once, with one translator call, for a peer that consumes it, and reports how long it took', async () => {
    const translate = vi.fn((_input: LlmContextInput) => {
      now = new Date(now.getTime() + 250);
      return Promise.resolve('EasyJet is half the price but leaves at 06:15.');
    });
    const settle = settlementWith(cacheTranslationsByTurn({ translate }));
    const settlement = await settle(record('a2a'), 'complete', peer(['domain-data', 'llm-context', 'a2ui-surface']));
    expect(translate).toHaveBeenCalledTimes(1);
    expect(translate.mock.calls[0]?.[0]).toMatchObject({ responseText: 'Two flights, EasyJet cheaper.', turnId: 'turn_1', sessionId: 'ses_1' });
    expect(types(settlement)).toEqual(['response', 'domain-data', 'llm-context', 'a2ui-surface']);
    expect(settlement.parts.find(({ part }) => part.metadata.partType === 'llm-context')?.part.text).toBe('EasyJet is half the price but leaves at 06:15.');
    expect(settlement.llmContext).toEqual({ status: 'translated', durationMs: 250 });
    // The same turn settled again (a retried job) is not translated again.
    await settle(record('a2a'), 'complete', peer(['llm-context']));
    expect(translate).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['email', 'buffered'],
    ['sse', 'streaming'],
    ['web', 'streaming'],
    ['sms', 'buffered'],
    ['slack', 'streaming'],
    ['whatsapp', 'buffered'],
  ] as const)('never calls the translator for %s, which has no peer, and still sends surfaces there', async (id, deliveryClass) => {
    const { translator, translate } = translatorReturning('x');
    const settlement = await settlementWith(translator)(record(id), 'complete', { id, deliveryClass });
    expect(translate).not.toHaveBeenCalled();
    expect(types(settlement)).not.toContain('llm-context');
    expect(settlement.llmContext).toBeUndefined();
    if (deliveryClass === 'streaming') expect(types(settlement)).toContain('a2ui-surface');
  });

  it('gives a peer without llm-context and a2ui-surface in its consumes neither, and calls no translator', async () => {
    const { translator, translate } = translatorReturning('x');
    for (const deliveryClass of ['streaming', 'buffered'] as const) {
      const settlement = await settlementWith(translator)(record('a2a'), 'complete', peer(['domain-data'], deliveryClass));
      // On a streaming transport the response already went out as it was emitted.
      expect(types(settlement)).toEqual(deliveryClass === 'streaming' ? ['domain-data'] : ['response', 'domain-data']);
      expect(settlement.llmContext).toBeUndefined();
    }
    expect(translate).not.toHaveBeenCalled();
  });

  it('sends the envelope without llm-context when the translator fails, and says why; the turn is not failed', async () => {
    const failing: LlmContextTranslator = {
      translate: () => Promise.reject(new SwitchboardError('model.failed', 'The model call failed (HTTP 529): overloaded.')),
    };
    const settlement = await settlementWith(failing)(record('a2a'), 'complete', peer(['llm-context', 'domain-data']));
    expect(types(settlement)).toEqual(['response', 'domain-data']);
    expect(settlement.llmContext).toMatchObject({ status: 'failed', code: 'model.failed', message: 'The model call failed (HTTP 529): overloaded.' });
  });

  it('says when a peer asked for llm-context but no translator is configured', async () => {
    const settle = createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces: createSurfaceTemplateRegistry() });
    const settlement = await settle(record('a2a'), 'complete', peer(['llm-context']));
    expect(settlement.llmContext).toEqual({ status: 'no-translator' });
  });

  it('builds nothing, and translates nothing, for a state that emits no envelope', async () => {
    const { translator, translate } = translatorReturning('x');
    const settlement = await settlementWith(translator)(record('a2a'), 'clarifying', peer(['llm-context']));
    expect(settlement).toEqual({ parts: [] });
    expect(translate).not.toHaveBeenCalled();
  });
});

describe('the ids of the parts the settlement makes', () => {
  const ids = (settlement: { parts: readonly { partId: string; part: { metadata: { partType: string } } }[] }) =>
    new Map(settlement.parts.map(({ partId, part }) => [partId, part.metadata.partType]));

  it('names each part by what it is, so a settlement built again after a failed translation gives the same id to the same part', async () => {
    const failing: LlmContextTranslator = {
      translate: () => Promise.reject(new SwitchboardError('model.failed', 'The model call failed (HTTP 529): overloaded.')),
    };
    const consumes = peer(['domain-data', 'llm-context', 'a2ui-surface']);
    // The first attempt: the translation fails, the envelope goes without llm-context.
    const first = await settlementWith(failing)(record('a2a'), 'complete', consumes);
    // The job is retried after a crash and the settlement is built again; this time the translation works.
    const second = await settlementWith(translatorReturning('EasyJet is cheaper.').translator)(record('a2a'), 'complete', consumes);
    expect(types(first)).toEqual(['response', 'domain-data', 'a2ui-surface']);
    expect(types(second)).toEqual(['response', 'domain-data', 'llm-context', 'a2ui-surface']);
    // Every id of the first attempt carries the same part type in the second one (the idempotency key of a delivery).
    for (const [partId, partType] of ids(first)) expect(ids(second).get(partId), partId).toBe(partType);
    const surface = (settlement: typeof first) => settlement.parts.find(({ part }) => part.metadata.partType === 'a2ui-surface');
    expect(surface(first)?.partId).toBe('turn_1.env.surface.flight-results');
    expect(surface(second)?.partId).toBe(surface(first)?.partId);
    expect(second.parts.map(({ partId }) => partId)).toEqual(['turn_1.1.0.0', 'turn_1.env.domain-data', 'turn_1.env.llm-context', 'turn_1.env.surface.flight-results']);
  });

  it('keeps the ids unique when two surfaces would get the same name', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    const same: SurfaceTemplate = (_data, context) => ({
      version: A2UI_VERSION,
      createSurface: { surfaceId: 'results', catalogId: BASIC_CATALOG_ID },
      updateComponents: { surfaceId: 'results', components: [{ id: 'root', component: 'Text', text: context.kind }] },
    });
    surfaces.register('flight-results', same);
    surfaces.register('hotel-results', same);
    const settle = createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces, clock: () => now });
    const turn = { ...record('a2a'), dataEvents: [...record('a2a').dataEvents, { kind: 'hotel-results', data: { hotels: ['H1'] }, source: 'search_hotels' }] };
    const settlement = await settle(turn, 'complete', peer(['domain-data', 'a2ui-surface']));
    const surfaceIds = settlement.parts.filter(({ part }) => part.metadata.partType === 'a2ui-surface').map(({ partId }) => partId);
    expect(surfaceIds).toEqual(['turn_1.env.surface.results', 'turn_1.env.surface.results.2']);
  });
});

describe('surfaces the settlement drops', () => {
  it('leaves out the surface of a failing template, keeps its data, and logs a surface_dropped entry', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', () => {
      throw new SwitchboardError('envelope.invalid', 'No flights to show.');
    });
    const append = vi.fn((_sessionId: string, _entry: EventLogEntry) => Promise.resolve('1-0'));
    const settle = createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces, clock: () => now, log: { append } });
    const settlement = await settle(record('web'), 'complete', { id: 'web', deliveryClass: 'buffered' });
    expect(types(settlement)).toEqual(['response', 'domain-data']);
    expect(append).toHaveBeenCalledTimes(1);
    expect(append).toHaveBeenCalledWith('ses_1', {
      type: 'surface_dropped',
      turnId: 'turn_1',
      data: {
        kind: 'flight-results',
        surfaceId: 'flight-results',
        reason: 'template-threw',
        code: 'envelope.invalid',
        message: 'The surface template for "flight-results" threw: No flights to show.',
      },
    });
  });

  it('logs nothing when every surface was made', async () => {
    const append = vi.fn((_sessionId: string, _entry: EventLogEntry) => Promise.resolve('1-0'));
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', flightTemplate);
    const settle = createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces, clock: () => now, log: { append } });
    const settlement = await settle(record('web'), 'complete', { id: 'web', deliveryClass: 'buffered' });
    expect(types(settlement)).toEqual(['response', 'domain-data', 'a2ui-surface']);
    expect(append).not.toHaveBeenCalled();
  });
});
