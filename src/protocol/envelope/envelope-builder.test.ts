import type { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it, vi } from 'vitest';
import { buildAgentCard } from '../agent-card/agent-card.ts';
import { SwitchboardError } from '../errors.ts';
import type { ApprovalRequest } from '../parts/approval-parts.ts';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import type { Part } from '../parts/part.ts';
import { A2UI_VERSION, BASIC_CATALOG_ID } from './a2ui.ts';
import type { A2uiSurfaceMessage, SurfaceTemplate, SurfaceTemplateContext } from './a2ui.ts';
import { buildEnvelope } from './envelope-builder.ts';
import type { BuildEnvelopeOptions } from './envelope-builder.ts';
import type { LlmContextInput, LlmContextTranslator } from './llm-context.ts';
import { cacheTranslationsByTurn } from './llm-context.ts';
import { createStateMachineRegistry } from './state-machine.ts';
import { MAX_SURFACE_DATA_MODEL_BYTES } from './surface-check.ts';
import { createSurfaceTemplateRegistry } from './surface-templates.ts';

const NOW = new Date('2026-04-20T09:50:00.000Z');
const clock = () => NOW;

const text = (partType: string, value: string): Part => ({ text: value, metadata: { partType } });

const approval: ApprovalRequest = {
  approvalId: 'apr_1',
  toolName: 'book_table',
  toolCallId: 'toolu_9',
  args: { restaurant: 'Da Mario', people: 4 },
  handler: 'concierge',
  turn: 'turn_1',
  session: 'sess_1',
};

function card(envelopeConsumes: string[], name = 'Peer'): AgentCard {
  return buildAgentCard({
    name,
    description: 'A peer agent.',
    url: 'https://peer.example.com/a2a',
    version: '1.0.0',
    skills: [],
    envelopeConsumes,
  });
}

const nonBeachCard: AgentCard = { ...card([]), capabilities: { extensions: [] } };

const flightTemplate: SurfaceTemplate = (data, context): A2uiSurfaceMessage => ({
  version: A2UI_VERSION,
  createSurface: { surfaceId: context.surfaceId, catalogId: BASIC_CATALOG_ID, sendDataModel: true },
  updateDataModel: { surfaceId: context.surfaceId, path: '/', value: data },
  updateComponents: {
    surfaceId: context.surfaceId,
    components: [{ id: 'root', component: 'Text', text: { path: '/flights/0' } }],
  },
});

function translatorReturning(prose: string) {
  const translate = vi.fn((_input: LlmContextInput) => Promise.resolve(prose));
  return { translator: { translate } satisfies LlmContextTranslator, translate };
}

function baseOptions(overrides: Partial<BuildEnvelopeOptions> = {}): BuildEnvelopeOptions {
  const surfaces = createSurfaceTemplateRegistry();
  surfaces.register('flight-results', flightTemplate);
  return {
    sessionId: 'sess_1',
    turnId: 'turn_1',
    finalizedBy: 'complete',
    parts: [text('response', 'Two direct flights found.')],
    dataEvents: [{ kind: 'flight-results', data: { flights: ['BA2043', 'EJ4521'] }, source: 'search_flights' }],
    surfaces,
    clock,
    partTypes: createPartTypeRegistry(),
    ...overrides,
  };
}

const types = (parts: readonly Part[]) => parts.map((part) => part.metadata.partType);

describe('buildEnvelope: shape and meta', () => {
  it('writes role and the meta block from the options and the injected clock', async () => {
    const { envelope } = await buildEnvelope(baseOptions({ finalizedBy: 'complete' }));
    expect(envelope.role).toBe('agent');
    expect(envelope.meta).toEqual({
      sessionId: 'sess_1',
      turnId: 'turn_1',
      producedAt: '2026-04-20T09:50:00.000Z',
      finalizedBy: 'complete',
    });
  });

  it('refuses empty ids', async () => {
    await expect(buildEnvelope(baseOptions({ turnId: '' }))).rejects.toMatchObject({ code: 'envelope.invalid' });
    await expect(buildEnvelope(baseOptions({ finalizedBy: '' }))).rejects.toMatchObject({ code: 'envelope.invalid' });
  });

  it('orders parts: kept parts (approval surface after its request), domain-data, llm-context, data surfaces', async () => {
    const { translator } = translatorReturning('Analysis.');
    const { envelope } = await buildEnvelope(
      baseOptions({
        parts: [
          text('ack', 'Looking.'),
          { data: { 'hotel-results': { hotels: [] } }, metadata: { partType: 'domain-data' } },
          text('response', 'Found them.'),
          { data: { ...approval }, metadata: { partType: 'approval-request' } },
          text('citation', 'source'),
        ],
        originators: [card(['llm-context'])],
        translator,
      }),
    );
    expect(types(envelope.parts)).toEqual([
      'ack',
      'response',
      'approval-request',
      'a2ui-surface',
      'citation',
      'domain-data',
      'llm-context',
      'a2ui-surface',
    ]);
  });

  it('keeps a conversation-only turn as it is, without domain-data', async () => {
    const parts = [text('response', 'Hello.'), text('thinking', 'hm')];
    const { envelope, llmContext } = await buildEnvelope(baseOptions({ parts, dataEvents: [] }));
    expect(envelope.parts).toEqual(parts);
    expect(llmContext).toEqual({ status: 'not-requested' });
  });

  it('keeps parts of unregistered types in place (the delivery filter reports them)', async () => {
    const stray = text('ghost.part', 'x');
    const { envelope } = await buildEnvelope(baseOptions({ parts: [stray], dataEvents: [] }));
    expect(envelope.parts).toEqual([stray]);
  });
});

describe('buildEnvelope: domain data', () => {
  it('folds events and actor data-bearing parts into exactly one domain-data part', async () => {
    const partTypes = createPartTypeRegistry();
    partTypes.register({ partType: 'ta.itinerary', deliveryRules: { streaming: 'flush', buffered: 'render' }, dataBearing: true });
    const { envelope } = await buildEnvelope(
      baseOptions({
        partTypes,
        parts: [
          text('response', 'Done.'),
          { data: { weather: { c: 20 } }, metadata: { partType: 'domain-data' } },
          { data: { days: 3 }, metadata: { partType: 'ta.itinerary' } },
        ],
      }),
    );
    const dataParts = envelope.parts.filter((part) => part.metadata.partType === 'domain-data');
    expect(dataParts).toHaveLength(1);
    expect(dataParts[0]?.data).toEqual({
      'flight-results': { flights: ['BA2043', 'EJ4521'] },
      weather: { c: 20 },
      'ta.itinerary': { days: 3 },
    });
    expect(types(envelope.parts)).not.toContain('ta.itinerary');
  });

  it('stamps slotKey and mergeStrategy on the domain-data part', async () => {
    const { envelope } = await buildEnvelope(baseOptions({ slotKey: 'ta.research-rome', mergeStrategy: 'append' }));
    const data = envelope.parts.find((part) => part.metadata.partType === 'domain-data');
    expect(data?.metadata).toEqual({ partType: 'domain-data', slotKey: 'ta.research-rome', mergeStrategy: 'append' });
    expect(data?.data).toEqual({ 'flight-results': [{ flights: ['BA2043', 'EJ4521'] }] });
  });

  it('stamps mergeStrategy replace by default and no slotKey', async () => {
    const { envelope } = await buildEnvelope(baseOptions());
    expect(envelope.parts.find((part) => part.metadata.partType === 'domain-data')?.metadata).toEqual({
      partType: 'domain-data',
      mergeStrategy: 'replace',
    });
  });
});

describe('buildEnvelope: surfaces', () => {
  it('builds a surface for a data kind with a template', async () => {
    const { envelope } = await buildEnvelope(baseOptions());
    const surface = envelope.parts.find((part) => part.metadata.partType === 'a2ui-surface');
    expect(surface?.data).toEqual(flightTemplate({ flights: ['BA2043', 'EJ4521'] }, {
      surfaceId: 'flight-results',
      kind: 'flight-results',
      sessionId: 'sess_1',
      turnId: 'turn_1',
      mergeStrategy: 'replace',
    }));
  });

  it('names the surface after the slot when a slot key is given, and passes the context', async () => {
    const seen: unknown[] = [];
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', (data, context) => {
      seen.push(context);
      return flightTemplate(data, context);
    });
    await buildEnvelope(baseOptions({ surfaces, slotKey: 'ta.trip' }));
    expect(seen).toEqual([
      { surfaceId: 'ta.trip/flight-results', kind: 'flight-results', sessionId: 'sess_1', turnId: 'turn_1', mergeStrategy: 'replace', slotKey: 'ta.trip' },
    ]);
  });

  it('omits the surface when no template matches the data kind', async () => {
    const { envelope } = await buildEnvelope(baseOptions({ dataEvents: [{ kind: 'hotel-results', data: { hotels: [] } }] }));
    expect(types(envelope.parts)).toEqual(['response', 'domain-data']);
  });

  it('drops the surface of a template that throws, keeping its data, and says why', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', () => {
      throw new Error('flights missing');
    });
    const { envelope, droppedSurfaces } = await buildEnvelope(baseOptions({ surfaces }));
    expect(types(envelope.parts)).toEqual(['response', 'domain-data']);
    expect(droppedSurfaces).toEqual([
      {
        kind: 'flight-results',
        surfaceId: 'flight-results',
        reason: 'template-threw',
        code: 'internal',
        message: 'The surface template for "flight-results" threw: flights missing',
      },
    ]);
  });

  it('keeps the code of a SwitchboardError a template throws', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', () => {
      throw new SwitchboardError('envelope.invalid', 'no flights');
    });
    const { droppedSurfaces } = await buildEnvelope(baseOptions({ surfaces }));
    expect(droppedSurfaces[0]).toMatchObject({ reason: 'template-threw', code: 'envelope.invalid' });
  });

  const invalid: [string, (context: SurfaceTemplateContext) => A2uiSurfaceMessage, string][] = [
    ['an unknown component', (context) => ({ ...flightTemplate({}, context), updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Carousel' }] } }), 'component "root" is a "Carousel", which the basic catalog does not have'],
    ['a binding to a missing path', (context) => flightTemplate({ trains: [] }, context), 'component "root" binds "/flights/0" (/flights/0), which is not in the data model'],
    [
      'a cycle of children',
      (context) => ({
        ...flightTemplate({}, context),
        updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Card', child: 'inner' }, { id: 'inner', component: 'Card', child: 'root' }] },
      }),
      'components form a cycle: root -> inner -> root',
    ],
    [
      'a child that does not exist',
      (context) => ({ ...flightTemplate({}, context), updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Card', child: 'ghost' }] } }),
      'component "root" refers to unknown child "ghost"',
    ],
    [
      'an oversized data model',
      (context) => flightTemplate({ flights: ['x'.repeat(MAX_SURFACE_DATA_MODEL_BYTES)] }, context),
      `the data model is ${String(MAX_SURFACE_DATA_MODEL_BYTES + 16)} bytes of JSON; at most ${String(MAX_SURFACE_DATA_MODEL_BYTES)} are allowed`,
    ],
    ['a surface without a root', (context) => ({ ...flightTemplate({}, context), updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'not-root', component: 'Text', text: 'x' }] } }), 'no component has id "root"'],
  ];

  it.each(invalid)('drops a surface with %s, keeping its data', async (_name, make, problem) => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', (_data, context) => make(context));
    const { envelope, droppedSurfaces } = await buildEnvelope(baseOptions({ surfaces }));
    expect(types(envelope.parts)).toEqual(['response', 'domain-data']);
    expect(droppedSurfaces).toEqual([expect.objectContaining({ kind: 'flight-results', surfaceId: 'flight-results', reason: 'invalid-surface', problems: [problem] })]);
    expect(droppedSurfaces[0]?.message).toContain(problem);
  });

  it('drops the surface of a template that returns a promise', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', () => Promise.reject(new Error('late')) as unknown as A2uiSurfaceMessage);
    const { droppedSurfaces } = await buildEnvelope(baseOptions({ surfaces }));
    expect(droppedSurfaces[0]?.problems).toEqual(['the template returned a promise; surface templates are synchronous']);
  });

  it('drops only the failing surface: another kind keeps its own', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    surfaces.register('flight-results', flightTemplate);
    surfaces.register('hotel-results', () => {
      throw new Error('no hotels');
    });
    const { envelope, droppedSurfaces } = await buildEnvelope(
      baseOptions({ surfaces, dataEvents: [...(baseOptions().dataEvents ?? []), { kind: 'hotel-results', data: { hotels: [] } }] }),
    );
    expect(types(envelope.parts)).toEqual(['response', 'domain-data', 'a2ui-surface']);
    expect(droppedSurfaces.map((dropped) => dropped.kind)).toEqual(['hotel-results']);
  });

  it('keeps an approval-request part whose approval surface cannot be made', async () => {
    const request: Part = { data: { approvalId: 'apr_1' }, metadata: { partType: 'approval-request' } };
    const { envelope, droppedSurfaces } = await buildEnvelope(baseOptions({ parts: [request], dataEvents: [] }));
    expect(envelope.parts).toEqual([request]);
    expect(droppedSurfaces).toEqual([expect.objectContaining({ kind: 'approval-request', surfaceId: 'approval-apr_1', reason: 'template-threw', code: 'envelope.invalid' })]);
  });

  it('adds the built-in approval surface right after an approval-request part, bound to its approvalId', async () => {
    const request: Part = { data: { ...approval }, metadata: { partType: 'approval-request' } };
    const { envelope } = await buildEnvelope(baseOptions({ parts: [request], dataEvents: [] }));
    expect(envelope.parts[0]).toBe(request);
    const surface = envelope.parts[1]?.data as unknown as A2uiSurfaceMessage;
    expect(envelope.parts[1]?.metadata.partType).toBe('a2ui-surface');
    expect(surface.createSurface.surfaceId).toBe('approval-apr_1');
    const actions = surface.updateComponents.components.flatMap((component) =>
      component.component === 'Button' ? [component['action']] : [],
    );
    expect(actions).toEqual([
      { event: { name: 'approval.decide', context: { approvalId: 'apr_1', decision: 'granted' } } },
      { event: { name: 'approval.decide', context: { approvalId: 'apr_1', decision: 'denied' } } },
    ]);
  });

  it('uses an overriding approval template instead of the built-in one', async () => {
    const surfaces = createSurfaceTemplateRegistry();
    const custom = vi.fn<SurfaceTemplate>((_data, context) => ({
      version: A2UI_VERSION,
      createSurface: { surfaceId: context.surfaceId, catalogId: BASIC_CATALOG_ID },
      updateComponents: { surfaceId: context.surfaceId, components: [{ id: 'root', component: 'Text', text: 'Custom' }] },
    }));
    surfaces.override('approval-request', custom);
    const { envelope } = await buildEnvelope(
      baseOptions({ surfaces, parts: [{ data: { ...approval }, metadata: { partType: 'approval-request' } }], dataEvents: [] }),
    );
    expect(custom).toHaveBeenCalledTimes(1);
    expect(custom.mock.calls[0]?.[0]).toEqual(approval);
    const surface = envelope.parts[1]?.data as unknown as A2uiSurfaceMessage;
    expect(surface.updateComponents.components).toEqual([{ id: 'root', component: 'Text', text: 'Custom' }]);
  });
});

describe('buildEnvelope: llm-context', () => {
  it('translates once for a Beach peer whose card lists llm-context, with the response and the data', async () => {
    const { translator, translate } = translatorReturning('EasyJet is cheaper but early.');
    const { envelope, llmContext } = await buildEnvelope(
      baseOptions({
        parts: [text('response', 'Two flights.'), text('response', 'Both direct.')],
        originators: [card(['domain-data', 'llm-context']), card(['llm-context'], 'Second')],
        translator,
      }),
    );
    expect(translate).toHaveBeenCalledTimes(1);
    expect(translate).toHaveBeenCalledWith({
      responseText: 'Two flights.\n\nBoth direct.',
      domainData: { 'flight-results': { flights: ['BA2043', 'EJ4521'] } },
      sessionId: 'sess_1',
      turnId: 'turn_1',
    });
    expect(envelope.parts.filter((part) => part.metadata.partType === 'llm-context')).toEqual([
      { text: 'EasyJet is cheaper but early.', metadata: { partType: 'llm-context' } },
    ]);
    expect(llmContext).toEqual({ status: 'translated' });
  });

  it('does not translate for a non-Beach peer', async () => {
    const { translator, translate } = translatorReturning('x');
    const { envelope, llmContext } = await buildEnvelope(baseOptions({ originators: [nonBeachCard], translator }));
    expect(translate).not.toHaveBeenCalled();
    expect(types(envelope.parts)).not.toContain('llm-context');
    expect(llmContext).toEqual({ status: 'not-requested' });
  });

  it('does not translate for a Beach peer that does not list llm-context, nor without originators', async () => {
    const { translator, translate } = translatorReturning('x');
    await buildEnvelope(baseOptions({ originators: [card(['domain-data', 'a2ui-surface'])], translator }));
    await buildEnvelope(baseOptions({ translator }));
    expect(translate).not.toHaveBeenCalled();
  });

  it('translates a turn once across builds with a per-turn cache', async () => {
    const { translator, translate } = translatorReturning('x');
    const cached = cacheTranslationsByTurn(translator);
    const options = baseOptions({ originators: [card(['llm-context'])], translator: cached });
    await buildEnvelope(options);
    await buildEnvelope(options);
    expect(translate).toHaveBeenCalledTimes(1);
  });

  it('keeps the actor’s own llm-context instead of translating, only when asked for', async () => {
    const { translator, translate } = translatorReturning('x');
    const own = text('llm-context', 'My own analysis.');
    const asked = await buildEnvelope(baseOptions({ parts: [own], originators: [card(['llm-context'])], translator }));
    expect(translate).not.toHaveBeenCalled();
    expect(asked.envelope.parts.filter((part) => part.metadata.partType === 'llm-context')).toEqual([own]);
    expect(asked.llmContext).toEqual({ status: 'actor-provided' });
    const notAsked = await buildEnvelope(baseOptions({ parts: [own] }));
    expect(types(notAsked.envelope.parts)).not.toContain('llm-context');
  });

  it('goes without llm-context, and says why, when the translator fails or is missing', async () => {
    const failing: LlmContextTranslator = { translate: () => Promise.reject(new Error('model down')) };
    const failed = await buildEnvelope(baseOptions({ originators: [card(['llm-context'])], translator: failing }));
    expect(types(failed.envelope.parts)).not.toContain('llm-context');
    expect(failed.llmContext).toMatchObject({ status: 'failed', error: { code: 'internal', message: 'model down' } });
    const missing = await buildEnvelope(baseOptions({ originators: [card(['llm-context'])] }));
    expect(missing.llmContext).toEqual({ status: 'no-translator' });
  });

  it('does not translate when there is neither response text nor data', async () => {
    const { translator, translate } = translatorReturning('x');
    const { llmContext } = await buildEnvelope(
      baseOptions({ parts: [text('ack', 'ok')], dataEvents: [], originators: [card(['llm-context'])], translator }),
    );
    expect(translate).not.toHaveBeenCalled();
    expect(llmContext).toEqual({ status: 'nothing-to-translate' });
  });
});

describe('buildEnvelope: setState', () => {
  const stateMachines = createStateMachineRegistry([
    {
      component: 'booking',
      states: ['idle', 'searching', 'held'],
      initial: 'idle',
      transitions: { idle: ['searching'], searching: ['held'] },
      allowHandlerTransitions: true,
    },
  ]);
  const setState = (data: Record<string, unknown>): Part => ({ data, metadata: { partType: 'setState' } });

  it('applies setState parts and strips them from the envelope', async () => {
    const result = await buildEnvelope(
      baseOptions({
        parts: [text('response', 'Holding it.'), setState({ 'booking.flight': 'searching' }), setState({ 'booking.flight': 'held' })],
        stateMachines,
        currentState: { 'booking.hotel': 'idle' },
      }),
    );
    expect(types(result.envelope.parts)).not.toContain('setState');
    expect(result.state).toEqual({ 'booking.hotel': 'idle', 'booking.flight': 'held' });
    expect(result.rejectedSetState).toBeUndefined();
  });

  it('applies none of the patches when one key is refused, and reports it', async () => {
    const currentState = { 'booking.flight': 'idle' };
    const result = await buildEnvelope(
      baseOptions({
        parts: [setState({ 'booking.flight': 'searching' }), setState({ 'booking.hotel': 'held' })],
        stateMachines,
        currentState,
      }),
    );
    expect(result.state).toEqual(currentState);
    expect(result.rejectedSetState).toEqual([expect.objectContaining({ key: 'booking.hotel', reason: 'illegal-transition' })]);
    expect(types(result.envelope.parts)).not.toContain('setState');
  });

  it('refuses every key when no state machines are configured', async () => {
    const result = await buildEnvelope(baseOptions({ parts: [setState({ 'booking.flight': 'searching' })] }));
    expect(result.state).toEqual({});
    expect(result.rejectedSetState).toEqual([expect.objectContaining({ reason: 'unknown-component' })]);
  });

  it('refuses a setState part without data', async () => {
    const result = await buildEnvelope(baseOptions({ parts: [text('setState', 'x')], stateMachines }));
    expect(result.rejectedSetState).toEqual([expect.objectContaining({ reason: 'invalid-value' })]);
  });

  it('leaves state out of the result when the turn had no setState part', async () => {
    const result = await buildEnvelope(baseOptions({ stateMachines, currentState: { 'booking.flight': 'idle' } }));
    expect(result).not.toHaveProperty('state');
    expect(result).not.toHaveProperty('rejectedSetState');
  });
});
