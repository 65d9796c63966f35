import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import { buildRespondTool } from '../../protocol/respond/respond-schema.ts';
import { createToolRegistry } from '../../protocol/tools/tool-registry.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { Injection } from '../injection.ts';
import type { ModelOutputBlock, ModelResponse } from '../model/model-types.ts';
import { createToolRouter } from '../router/tool-router.ts';
import { createBufferedEventLog } from '../session/buffered-event-log.ts';
import type { BatchEventLog, EventLog } from '../session/event-log.ts';
import type { SessionStore, TurnInProgress } from '../session/session-store.ts';
import type { TurnOutput } from './turn-output.ts';
import { DEFAULT_ACTOR_LIMITS } from './actor-config.ts';
import { resolveActors } from './resolved-actor.ts';
import { beginTurn, runSessionTurns } from './turn-runner.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const message: Injection = {
  id: 'web:c-1:m-1', kind: 'message', channel: 'web', sessionId: 's-1', receivedAt: '2026-11-28T10:00:00.000Z',
  sender: { id: 'web:b_1', verified: true }, content: [{ type: 'text', text: 'Book it.' }], replyTo: { channel: 'web', address: 'c-1' },
} as unknown as Injection;

const usage = { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
const respond = (text: string): ModelOutputBlock => ({ type: 'tool_use', id: `r-${text}`, name: 'respond', input: { parts: [{ text, metadata: { partType: 'response' } }], turnState: 'complete' } });

/** What happened, in order, and the first save of the record, which the test answers. */
interface Run {
  readonly events: string[];
  answerSave(): void;
  readonly done: Promise<void>;
}

/**
 * Runs one new turn whose model answers with `first` (then a plain answer), over `log`; the
 * record's first save stays unanswered until {@link Run.answerSave}.
 */
function runTurn(first: readonly ModelOutputBlock[], log: (batch: BatchEventLog) => EventLog, sentBegin?: 'answered' | 'did nothing'): Run {
  const events: string[] = [];
  const { promise: saved, resolve } = Promise.withResolvers<undefined>();
  const registry = createToolRegistry();
  registry.register({ name: 'book', description: 'Books.', scope: 'generalist', inputSchema: { type: 'object' }, handler: () => { events.push('tool ran'); return 'booked'; } });
  const partTypes = createPartTypeRegistry();
  const turnStates = createTurnStateRegistry();
  let begun = false;
  const store: Partial<SessionStore> = {
    beginTurn: (_sessionId, create) => {
      events.push('begin');
      if (begun) return Promise.resolve(undefined);
      begun = true;
      const progress: TurnInProgress = { record: create(message), inbox: [message], history: [], historyChars: 0, resumed: false, saved: saved.then(() => { events.push('saved'); }) };
      return Promise.resolve(progress);
    },
    steer: () => Promise.resolve([]),
    saveTurn: () => Promise.resolve(),
    finishTurn: () => Promise.resolve(0),
  };
  const batch: BatchEventLog = {
    append: () => Promise.resolve(''),
    appendAll: () => Promise.resolve(),
    read: () => Promise.resolve([]),
    prepare: () => ({ key: 'log', maxLen: '10', fields: [], written: () => Promise.resolve() }),
  };
  const output: TurnOutput = {
    part: async (_turn, emitted) => {
      await deps.log.flush?.('s-1');
      events.push(`delivered ${emitted.part.text ?? ''}`);
    },
    state: () => Promise.resolve(),
    settle: () => Promise.resolve(),
  };
  let calls = 0;
  const answer = (content: readonly ModelOutputBlock[]): ModelResponse => ({ id: 'msg', model: 'test', content: [...content], stopReason: 'tool_use', usage });
  const deps = {
    model: { create: () => { calls += 1; events.push(`model ${String(calls)}`); return Promise.resolve(answer(calls === 1 ? first : [respond('Done.')])); } },
    actors: resolveActors([{ name: 'concierge', model: 'test', systemPrompt: 'Help.', tools: ['book'], midTurn: 'steer', limits: DEFAULT_ACTOR_LIMITS }], registry),
    entryActor: 'concierge',
    registry,
    partTypes,
    turnStates,
    respondTool: buildRespondTool(partTypes, turnStates),
    store,
    log: log(batch),
    output,
    router: createToolRouter(),
  } as unknown as TurnRunnerDeps;
  const sent = sentBegin === undefined ? undefined : sentBegin === 'did nothing' ? Promise.resolve(undefined) : beginTurn(deps, 's-1', { key: 'lock', token: 'ours' });
  const done = runSessionTurns(deps, 's-1', new AbortController().signal, undefined, sent);
  return { events, answerSave: () => { resolve(undefined); }, done };
}

/** Lets every pending callback and timer of this turn of the loop run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What happened before the first save was answered, then everything once the run ended. */
async function order(run: Run): Promise<{ readonly unsaved: string[]; readonly all: string[] }> {
  await settle();
  const unsaved = [...run.events];
  run.answerSave();
  await run.done;
  return { unsaved, all: run.events };
}

describe('a new turn\'s first save of its record', () => {
  it('with a buffering log, does not hold the model call back, and is done before the first delivery', async () => {
    expect(await order(runTurn([respond('Hello.')], createBufferedEventLog))).toEqual({
      unsaved: ['begin', 'model 1'],
      all: ['begin', 'model 1', 'saved', 'delivered Hello.'],
    });
  });

  it('with a buffering log, is done before a tool the model called runs', async () => {
    const { unsaved, all } = await order(runTurn([{ type: 'tool_use', id: 'c-1', name: 'book', input: {} }], createBufferedEventLog));
    expect(unsaved).toEqual(['begin', 'model 1']);
    expect(all.slice(0, 4)).toEqual(['begin', 'model 1', 'saved', 'tool ran']);
  });

  it('with a log that writes at once, is done before the first model call', async () => {
    expect(await order(runTurn([respond('Hello.')], (batch) => batch))).toEqual({
      unsaved: ['begin'],
      all: ['begin', 'saved', 'model 1', 'delivered Hello.'],
    });
  });
});

describe('a begin sent before the run', () => {
  // One begin either way: the one sent, or the runner's own when the one sent did nothing.
  it.each([
    ['answered, starts the first turn from it', 'answered'],
    ['that did nothing (it ran before the claim, or found nothing), is made again', 'did nothing'],
  ] as const)('%s', async (_label, sent) => {
    expect(await order(runTurn([respond('Hello.')], createBufferedEventLog, sent))).toEqual({
      unsaved: ['begin', 'model 1'],
      all: ['begin', 'model 1', 'saved', 'delivered Hello.'],
    });
  });
});
