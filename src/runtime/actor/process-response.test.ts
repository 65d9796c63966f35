import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import type { ToolDefinition } from '../../protocol/tools/tool-definition.ts';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { ModelOutputBlock, ModelResponse } from '../model/model-types.ts';
import { createToolRouter } from '../router/tool-router.ts';
import type { EventLog, EventLogEntry } from '../session/event-log.ts';
import type { SessionStore } from '../session/session-store.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';
import type { ActorConfig } from './actor-config.ts';
import { applyResponse } from './apply-response.ts';
import type { LiveTurn } from './live-turn.ts';
import { processResponse } from './process-response.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import type { TurnOutput } from './turn-output.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const DEADLINE = '2025-06-01T12:02:00.000Z';

/** What the turn's output and log received, in order. */
interface Seen {
  readonly output: string[];
  readonly parts: EmittedPart[];
  readonly log: EventLogEntry[];
  /** The turn records saved. */
  readonly saved: TurnRecord[];
}

/** Deps with real registries, router and respond() checks, and a recording output and log. */
function setup(tools: ToolDefinition[]): { deps: TurnRunnerDeps; actor: ResolvedActor; seen: Seen } {
  const seen: Seen = { output: [], parts: [], log: [], saved: [] };
  const registry = createToolRegistry();
  const registered = tools.map((tool) => registry.register(tool));
  const output: TurnOutput = {
    part: (_turn, emitted) => {
      seen.output.push(`part ${emitted.partId}`);
      seen.parts.push(emitted);
      return Promise.resolve();
    },
    state: (_turn, turnState, actor) => {
      seen.output.push(`state ${turnState} ${actor}`);
      return Promise.resolve();
    },
    settle: (_turn, turnState) => {
      seen.output.push(`settle ${turnState}`);
      return Promise.resolve();
    },
  };
  const log: EventLog = {
    append: (_sessionId, entry) => {
      seen.log.push(entry);
      return Promise.resolve(String(seen.log.length));
    },
    read: () => Promise.resolve([]),
  };
  const store: Pick<SessionStore, 'saveTurn'> = {
    saveTurn: (saved) => {
      seen.output.push(`save ${saved.deadlineAt}`);
      seen.saved.push(saved);
      return Promise.resolve();
    },
  };
  const actor: ResolvedActor = {
    config: { name: 'concierge' } as ActorConfig,
    tools: new Map(registered.map((tool) => [tool.name, tool])),
    modelTools: [],
    terminalTools: [],
  };
  const deps = {
    registry,
    router: createToolRouter(),
    log,
    output,
    store,
    partTypes: createPartTypeRegistry(),
    turnStates: createTurnStateRegistry(),
    actors: new Map([['concierge', actor]]),
    entryActor: 'concierge',
  } as Partial<Omit<TurnRunnerDeps, 'store'>> as TurnRunnerDeps;
  return { deps, actor, seen };
}

function record(): TurnRecord {
  return {
    turnId: 't-1',
    sessionId: 's-1',
    actor: 'concierge',
    startedAt: '2025-06-01T12:00:00.000Z',
    deadlineAt: DEADLINE,
    step: 2,
    corrective: 0,
    handoffs: 0,
    given: 1,
    messages: [],
    status: 'running',
    emitted: [],
    dataEvents: [],
    replyTo: { channel: 'web', address: 'c-1' },
  };
}

function response(...content: ModelOutputBlock[]): ModelResponse {
  return { id: 'msg-1', model: 'test', content, stopReason: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } };
}

/** A tool that delegates: begins with a 60 s budget, reports two progress lines, answers with data. */
const askHotels: ToolDefinition = {
  name: 'ask_hotels',
  description: 'Ask the hotel agent.',
  scope: 'generalist',
  inputSchema: { type: 'object' },
  handler: async (_args, ctx) => {
    await ctx.delegation?.begin(60_000);
    await ctx.delegation?.progress('Searching hotels.');
    await ctx.delegation?.progress('Comparing prices.');
    return { state: 'completed', text: 'One hotel.', domainData: { kind: 'peer:hotels', data: { hotels: 1 } } };
  },
};

const lookup: ToolDefinition = {
  name: 'lookup',
  description: 'Look something up.',
  scope: 'generalist',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) => (ctx.delegation === undefined ? 'no hook' : 'hook'),
};

const respondAck: ModelOutputBlock = { type: 'tool_use', id: 'r-1', name: 'respond', input: { parts: [{ text: 'Asking the hotel agent.', metadata: { partType: 'ack' } }], turnState: 'awaiting' } };

function context(deps: TurnRunnerDeps, actor: ResolvedActor) {
  return { deps, record: record(), actor, step: 2, inbox: [], early: new Set<string>(), validated: new Map(), now: () => NOW };
}

describe('processResponse: the delegation hook of a tool call', () => {
  it('delivers `delegated`, extends the deadline by the budget and delivers progress parts with stable ids', async () => {
    const { deps, actor, seen } = setup([askHotels]);
    const outcome = await processResponse(context(deps, actor), response(respondAck, { type: 'tool_use', id: 'c-1', name: 'ask_hotels', input: {} }));

    const extended = new Date(Date.parse(DEADLINE) + 60_000).toISOString();
    expect(seen.output).toEqual(['part t-1.2.0.0', 'state awaiting concierge', `save ${extended}`, 'state delegated concierge', 'part t-1.2.1.peer.1', 'part t-1.2.1.peer.2']);
    expect(seen.parts.slice(1)).toEqual([
      { partId: 't-1.2.1.peer.1', part: { text: 'Searching hotels.', metadata: { partType: 'progress' } }, turnState: 'delegated', actor: 'concierge' },
      { partId: 't-1.2.1.peer.2', part: { text: 'Comparing prices.', metadata: { partType: 'progress' } }, turnState: 'delegated', actor: 'concierge' },
    ]);
    // The deadline moves out by the budget, so the peer's time is not taken from the actor's.
    expect(outcome.deadlineAt).toBe(new Date(Date.parse(DEADLINE) + 60_000).toISOString());
    expect(outcome.emitted.map((part) => part.partId)).toEqual(['t-1.2.0.0', 't-1.2.1.peer.1', 't-1.2.1.peer.2']);
    expect(outcome.dataEvents).toEqual([{ kind: 'peer:hotels', data: { hotels: 1 }, source: 'ask_hotels' }]);
    expect(outcome.waitState).toBeUndefined();
    expect(seen.log.filter((entry) => entry.type === 'turn_state').map((entry) => entry.data['turnState'])).toEqual(['awaiting', 'delegated']);
    expect(seen.log.filter((entry) => entry.type === 'part').map((entry) => [entry.data['partId'], entry.data['partType']])).toEqual([
      ['t-1.2.0.0', 'ack'],
      ['t-1.2.1.peer.1', 'progress'],
      ['t-1.2.1.peer.2', 'progress'],
    ]);
  });

  it('saves the turn with the extended deadline when the delegation begins, so a turn retried after a crash keeps it', async () => {
    const { deps, actor, seen } = setup([askHotels]);
    await processResponse(context(deps, actor), response({ type: 'tool_use', id: 'c-1', name: 'ask_hotels', input: {} }));
    expect(seen.saved).toEqual([{ ...record(), deadlineAt: new Date(Date.parse(DEADLINE) + 60_000).toISOString() }]);
  });

  it('drops a progress text equal to the one before and keeps at most 20 progress parts per call', async () => {
    const chatty: ToolDefinition = {
      name: 'ask_chatty',
      description: 'Ask a chatty peer.',
      scope: 'generalist',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        await ctx.delegation?.begin(1_000);
        for (const text of ['Working.', 'Working.', 'Still working.', 'Still working.', 'Working.']) await ctx.delegation?.progress(text);
        for (let n = 1; n <= 30; n += 1) await ctx.delegation?.progress(`Step ${String(n)}.`);
        return 'done';
      },
    };
    const { deps, actor, seen } = setup([chatty]);
    const outcome = await processResponse(context(deps, actor), response({ type: 'tool_use', id: 'c-1', name: 'ask_chatty', input: {} }));
    const texts = outcome.emitted.map((part) => part.part.text);
    expect(texts).toEqual(['Working.', 'Still working.', 'Working.', ...Array.from({ length: 17 }, (_, n) => `Step ${String(n + 1)}.`)]);
    expect(outcome.emitted.map((part) => part.partId)).toEqual(Array.from({ length: 20 }, (_, n) => `t-1.2.0.peer.${String(n + 1)}`));
    expect(seen.parts).toHaveLength(20);
    expect(seen.log.filter((entry) => entry.type === 'part')).toHaveLength(20);
  });

  it('gives each tool call its callId, `<turnId>.<step>.<blockIndex>`', async () => {
    const whoAmI: ToolDefinition = { name: 'who_am_i', description: 'Says its call id.', scope: 'generalist', inputSchema: { type: 'object' }, handler: (_args, ctx) => ctx.callId ?? 'none' };
    const { deps, actor } = setup([whoAmI]);
    const outcome = await processResponse(
      context(deps, actor),
      response(respondAck, { type: 'tool_use', id: 'c-1', name: 'who_am_i', input: {} }, { type: 'tool_use', id: 'c-2', name: 'who_am_i', input: {} }),
    );
    expect(outcome.results.slice(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'c-1', content: 't-1.2.1' },
      { type: 'tool_result', tool_use_id: 'c-2', content: 't-1.2.2' },
    ]);
  });

  it('extends from now when the deadline has already passed', async () => {
    const { deps, actor } = setup([askHotels]);
    const late = { ...context(deps, actor), now: () => Date.parse(DEADLINE) + 5_000 };
    const outcome = await processResponse(late, response({ type: 'tool_use', id: 'c-1', name: 'ask_hotels', input: {} }));
    expect(outcome.deadlineAt).toBe(new Date(Date.parse(DEADLINE) + 65_000).toISOString());
  });

  it('gives every tool call the hook, and leaves the deadline alone when nobody delegates', async () => {
    const { deps, actor, seen } = setup([lookup]);
    const outcome = await processResponse(context(deps, actor), response({ type: 'tool_use', id: 'c-1', name: 'lookup', input: {} }));
    expect(outcome.results).toEqual([{ type: 'tool_result', tool_use_id: 'c-1', content: 'hook' }]);
    expect(outcome.deadlineAt).toBeUndefined();
    expect(seen.output).toEqual([]);
  });
});

describe('applyResponse', () => {
  it('keeps the extended deadline and the progress parts in the turn record', async () => {
    const { deps, actor } = setup([askHotels]);
    const turn: LiveTurn = { record: record(), inbox: [], history: [] };
    const call = { step: 2, response: response({ type: 'tool_use', id: 'c-1', name: 'ask_hotels', input: {} }), early: new Set<string>(), validated: new Map() };
    await applyResponse(deps, turn, actor, () => NOW, call);
    expect(turn.record.deadlineAt).toBe(new Date(Date.parse(DEADLINE) + 60_000).toISOString());
    expect(turn.record.step).toBe(3);
    expect(turn.record.emitted.map((part) => part.partId)).toEqual(['t-1.2.0.peer.1', 't-1.2.0.peer.2']);
  });

  it('leaves the deadline as it was when no tool delegated', async () => {
    const { deps, actor } = setup([lookup]);
    const turn: LiveTurn = { record: record(), inbox: [], history: [] };
    const call = { step: 2, response: response({ type: 'tool_use', id: 'c-1', name: 'lookup', input: {} }), early: new Set<string>(), validated: new Map() };
    await applyResponse(deps, turn, actor, () => NOW, call);
    expect(turn.record.deadlineAt).toBe(DEADLINE);
  });
});
