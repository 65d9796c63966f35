import { describe, expect, it } from 'vitest';
import type { LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import { createSurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import type { Part } from '../../protocol/parts/part.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { EventLog, EventLogEntry } from '../session/event-log.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';
import type { ApprovalRecord } from '../approvals/approval-types.ts';
import { sampleApproval } from '../../../test/support/approval-fixtures.ts';
import type { RenderInput } from './render-input.ts';
import { createSettlement } from './settle-turn.ts';
import { createTurnDelivery, type Delivery, type PeerConsumes } from './turn-delivery.ts';

const partTypes = createPartTypeRegistry();
partTypes.register({ partType: 'ta.slot', deliveryRules: { streaming: 'flush', buffered: 'drop' }, allowedTransports: ['a2a'] });
const log: EventLog = { append: () => Promise.resolve(''), read: () => Promise.resolve([]) };

function setup(channel: string, deliveryClass: 'streaming' | 'buffered'): { output: ReturnType<typeof createTurnDelivery>; sent: Delivery[] } {
  const sent: Delivery[] = [];
  const output = createTurnDelivery({
    partTypes,
    log,
    channels: new Map([[channel, { deliveryClass, deliver: (delivery: Delivery) => { sent.push(delivery); return Promise.resolve(); } }]]),
    settle: createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces: createSurfaceTemplateRegistry(), clock: () => new Date('2026-11-22T10:00:00Z') }),
  });
  return { output, sent };
}

function turn(channel: string, emitted: EmittedPart[]): TurnRecord {
  return {
    turnId: 'turn_1', sessionId: 'ses_1', actor: 'concierge', startedAt: '', deadlineAt: '', step: 1, corrective: 0, handoffs: 0, given: 1,
    messages: [], status: 'running', emitted, dataEvents: [{ kind: 'flight-results', data: { flights: [1] }, source: 'search_flights' }],
    replyTo: { channel, address: 'a@example.com' },
  };
}

function emit(partId: string, part: Part, turnState = 'complete'): EmittedPart {
  return { partId, part, turnState, actor: 'concierge' };
}

const ack = emit('turn_1.0.0.0', { text: 'Looking.', metadata: { partType: 'ack' } }, 'awaiting');
const answer = emit('turn_1.1.0.0', { text: 'Two flights.', metadata: { partType: 'response' } });
const slot = emit('turn_1.1.0.1', { data: { slot: 1 }, metadata: { partType: 'ta.slot' } });

describe('turn delivery', () => {
  it('a buffered channel gets nothing while the turn runs, then one envelope without ack, keyed per destination', async () => {
    const { output, sent } = setup('email', 'buffered');
    const record = turn('email', [ack, answer]);
    await output.part(record, ack);
    await output.part(record, answer);
    await output.state(record, 'awaiting', 'concierge');
    expect(sent).toEqual([]);
    await output.settle(record, 'complete');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.idempotencyKey).toBe('turn_1.envelope|email:a@example.com');
    const payload = sent[0]?.payload;
    const parts = (payload?.type === 'envelope' ? payload.parts : []).map((part) => part.metadata.partType);
    expect(parts).toEqual(['response', 'domain-data']);
  });

  it('a buffered channel gets clarify at once and nothing more when the turn settles without an envelope', async () => {
    const { output, sent } = setup('email', 'buffered');
    const question = emit('turn_1.0.0.0', { text: 'Gatwick or Heathrow?', metadata: { partType: 'clarify' } }, 'clarifying');
    const record = turn('email', [question]);
    await output.part(record, question);
    await output.settle(record, 'clarifying');
    expect(sent.map((delivery) => delivery.payload.type)).toEqual(['part']);
  });

  it('a streaming channel gets flushed parts at once, the rest of the envelope once at settlement, then the settled state', async () => {
    const { output, sent } = setup('web', 'streaming');
    const record = turn('web', [ack, answer, slot]);
    for (const part of [ack, answer, slot]) await output.part(record, part);
    expect(sent.map((delivery) => delivery.idempotencyKey)).toEqual(['turn_1.0.0.0|web:a@example.com', 'turn_1.1.0.0|web:a@example.com']);
    await output.settle(record, 'complete');
    const later = sent.slice(2).map(({ payload }) => [payload.type, payload.type === 'part' ? payload.part.metadata.partType : payload.type === 'turn' ? payload.turnState : undefined]);
    // The response is not sent again, the consumer part allowed only on a2a never goes to web.
    expect(later).toEqual([['part', 'domain-data'], ['turn', 'complete']]);
  });

  it('a destination on a channel that is not configured is skipped, not thrown', async () => {
    const { output, sent } = setup('web', 'streaming');
    const record = turn('sms', [answer]);
    await output.part(record, answer);
    await output.settle(record, 'complete');
    expect(sent).toEqual([]);
  });
});

describe('turn delivery to a peer', () => {
  const surface = emit('turn_1.1.0.2', {
    data: { version: 'v0.9', createSurface: { surfaceId: 's', catalogId: 'c' } },
    metadata: { partType: 'a2ui-surface' },
  });

  function peerSetup(envelopeConsumes: readonly string[] | undefined, translator?: LlmContextTranslator) {
    const sent: Delivery[] = [];
    const logged: EventLogEntry[] = [];
    const peerLog: EventLog = { append: (_session, entry) => { logged.push(entry); return Promise.resolve(''); }, read: () => Promise.resolve([]) };
    const output = createTurnDelivery({
      partTypes,
      log: peerLog,
      channels: new Map([['a2a', {
        deliveryClass: 'streaming' as const,
        deliver: (delivery: Delivery) => { sent.push(delivery); return Promise.resolve(); },
        peer: (): Promise<PeerConsumes | undefined> => Promise.resolve(envelopeConsumes === undefined ? undefined : { envelopeConsumes }),
      }]]),
      settle: createSettlement({
        partTypes,
        turnStates: createTurnStateRegistry(),
        surfaces: createSurfaceTemplateRegistry(),
        clock: () => new Date('2026-11-22T10:00:00Z'),
        ...(translator === undefined ? {} : { translator }),
      }),
    });
    const partTypesSent = () => sent.flatMap(({ payload }) => (payload.type === 'part' ? [payload.part.metadata.partType] : []));
    return { output, sent, logged, partTypesSent };
  }

  it('drops an immediate a2ui-surface for a peer that does not consume it, and logs why', async () => {
    const { output, logged, partTypesSent } = peerSetup(['domain-data']);
    const record = turn('a2a', [ack, surface]);
    await output.part(record, ack);
    await output.part(record, surface);
    expect(partTypesSent()).toEqual(['ack']);
    expect(logged).toContainEqual({ type: 'delivery', turnId: 'turn_1', data: { skipped: 'peer-not-consuming', channel: 'a2a', partId: 'turn_1.1.0.2', partType: 'a2ui-surface' } });
  });

  it('sends an immediate a2ui-surface to a peer that consumes it, and to a destination that is not a peer', async () => {
    for (const consumes of [['a2ui-surface'], undefined]) {
      const { output, partTypesSent } = peerSetup(consumes);
      await output.part(turn('a2a', [surface]), surface);
      expect(partTypesSent()).toEqual(['a2ui-surface']);
    }
  });

  it('adds llm-context at settlement for a peer that consumes it and logs the translation', async () => {
    const translator: LlmContextTranslator = { translate: () => Promise.resolve('One option, direct.') };
    const { output, logged, partTypesSent } = peerSetup(['llm-context', 'domain-data'], translator);
    const record = turn('a2a', [answer]);
    await output.part(record, answer);
    await output.settle(record, 'complete');
    expect(partTypesSent()).toEqual(['response', 'domain-data', 'llm-context']);
    expect(logged).toContainEqual({ type: 'llm_context', turnId: 'turn_1', data: { status: 'translated', durationMs: 0 } });
  });

  it('settles a turn whose translation failed: the envelope goes without llm-context and the log says why', async () => {
    const translator: LlmContextTranslator = { translate: () => Promise.reject(new SwitchboardError('model.failed', 'The llm-context model gave no prose.')) };
    const { output, logged, sent, partTypesSent } = peerSetup(['llm-context', 'domain-data'], translator);
    const record = turn('a2a', [answer]);
    await output.settle(record, 'complete');
    expect(partTypesSent()).toEqual(['domain-data']);
    expect(sent.at(-1)?.payload).toMatchObject({ type: 'turn', turnState: 'complete' });
    expect(logged).toContainEqual({
      type: 'llm_context',
      turnId: 'turn_1',
      data: { status: 'failed', code: 'model.failed', message: 'The llm-context model gave no prose.', durationMs: 0 },
    });
  });

  it('never logs llm_context for a destination that is not a peer', async () => {
    let calls = 0;
    const translator: LlmContextTranslator = { translate: () => { calls += 1; return Promise.resolve('x'); } };
    const { output, logged } = peerSetup(undefined, translator);
    await output.settle(turn('a2a', [answer]), 'complete');
    expect(calls).toBe(0);
    expect(logged.some((entry) => entry.type === 'llm_context')).toBe(false);
  });
});

describe('turn delivery of an approval request', () => {
  const requester = { channel: 'email', address: 'a@example.com' };
  const request = emit('turn_1.0.0.0', { data: { approvalId: 'appr_1' }, metadata: { partType: 'approval-request' } }, 'suspended');

  async function deliveredTo(overrides: Partial<ApprovalRecord>): Promise<RenderInput | undefined> {
    const sent: Delivery[] = [];
    const record = sampleApproval({ approvalId: 'appr_1', status: 'pending', requester, replyTo: requester, ...overrides });
    const output = createTurnDelivery({
      partTypes,
      log,
      channels: new Map([['email', { deliveryClass: 'buffered', deliver: (delivery: Delivery) => { sent.push(delivery); return Promise.resolve(); } }]]),
      settle: () => Promise.resolve({ parts: [] }),
      approvals: { get: (approvalId: string) => Promise.resolve(approvalId === record.approvalId ? record : undefined) },
    });
    await output.part(turn('email', [request]), request);
    return sent[0]?.payload;
  }

  it('tells the turn\'s own conversation whether its requester may decide', async () => {
    expect(await deliveredTo({ allowRequester: false })).toMatchObject({ type: 'approval-request', mayDecide: false });
    expect(await deliveredTo({ allowRequester: true })).toMatchObject({ type: 'approval-request', mayDecide: true });
    expect(await deliveredTo({ allowRequester: false, approvers: [{ ...requester, personId: 'ada' }] })).toMatchObject({ type: 'approval-request', mayDecide: true });
  });
});

describe('turn delivery: live signals on a provider channel', () => {
  function paced(delayMs: number): { output: ReturnType<typeof createTurnDelivery>; sent: Delivery[] } {
    const sent: Delivery[] = [];
    const output = createTurnDelivery({
      partTypes,
      log,
      channels: new Map([['slack', { deliveryClass: 'streaming' as const, signalDelayMs: delayMs, deliver: (delivery: Delivery) => { sent.push(delivery); return Promise.resolve(); } }]]),
      settle: createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces: createSurfaceTemplateRegistry() }),
    });
    return { output, sent };
  }
  const kinds = (sent: readonly Delivery[]): string[] =>
    sent.map(({ payload }) => (payload.type === 'part' ? payload.part.metadata.partType : payload.type === 'turn' ? `turn:${String(payload.signalShowing)}` : payload.type));

  it('a quick turn sends its answer only: the held ack is dropped and the settled state says no status shows', async () => {
    const { output, sent } = paced(60_000);
    const record = { ...turn('slack', [ack, answer]), startedAt: new Date().toISOString() };
    await output.part(record, ack);
    expect(sent).toEqual([]);
    await output.part(record, answer);
    await output.settle(record, 'complete');
    expect(kinds(sent)).toEqual(['response', 'domain-data', 'turn:false']);
  });

  it('a turn that runs past the delay shows its latest signal, and the settled state clears a status no message followed', async () => {
    const { output, sent } = paced(40);
    const record = { ...turn('slack', [ack]), startedAt: new Date().toISOString() };
    const thinking = emit('turn_1.0.0.1', { text: 'Comparing fares.', metadata: { partType: 'thinking' } }, 'awaiting');
    await output.part(record, ack);
    await output.part(record, thinking);
    await expect.poll(() => kinds(sent)).toEqual(['thinking']);
    await output.state(record, 'awaiting', 'concierge');
    expect(kinds(sent).at(-1)).toBe('turn:true');
    await output.part(record, answer);
    await output.state(record, 'awaiting', 'concierge');
    expect(kinds(sent).slice(-2)).toEqual(['response', 'turn:false']);
  });

  it('an old turn (resumed, or past the delay) sends its signal at once; without memory the record decides', async () => {
    const { output, sent } = paced(1000);
    const record = { ...turn('slack', [answer, ack]), startedAt: '2026-11-22T10:00:00Z' };
    await output.part(record, ack);
    expect(kinds(sent)).toEqual(['ack']);
    const other = paced(1000);
    await other.output.state(record, 'awaiting', 'concierge');
    expect(kinds(other.sent)).toEqual(['turn:true']);
  });
});

describe('the log written before a delivery', () => {
  /** A delivery over a log whose flush waits to be answered; records when each happens. */
  function ordered(writesInOrder: boolean, heldFailure?: Error): { output: ReturnType<typeof createTurnDelivery>; events: string[]; answerFlush: () => void } {
    const events: string[] = [];
    const { promise: answered, resolve } = Promise.withResolvers<undefined>();
    const flushing: EventLog = {
      append: () => Promise.resolve(''),
      read: () => Promise.resolve([]),
      flush: async () => {
        events.push('flush sent');
        await answered;
        events.push('flush answered');
      },
      checkHeld: () => {
        if (heldFailure !== undefined) throw heldFailure;
      },
    };
    const output = createTurnDelivery({
      partTypes,
      log: flushing,
      channels: new Map([['web', { deliveryClass: 'streaming' as const, writesInOrder, deliver: () => { events.push('delivered'); return Promise.resolve(); } }]]),
      settle: createSettlement({ partTypes, turnStates: createTurnStateRegistry(), surfaces: createSurfaceTemplateRegistry(), clock: () => new Date('2026-11-22T10:00:00Z') }),
    });
    return { output, events, answerFlush: () => { resolve(undefined); } };
  }

  it('waits for the flush to be answered before a channel that does not write in order', async () => {
    const { output, events, answerFlush } = ordered(false);
    const sent = output.part(turn('web', [answer]), answer);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['flush sent']);
    answerFlush();
    await sent;
    expect(events).toEqual(['flush sent', 'flush answered', 'delivered']);
  });

  it('sends to a channel that writes in order right behind the flush, and ends when both did', async () => {
    const { output, events, answerFlush } = ordered(true);
    let done = false;
    const sent = output.part(turn('web', [answer]), answer).then(() => { done = true; });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['flush sent', 'delivered']);
    expect(done).toBe(false);
    answerFlush();
    await sent;
    expect(events).toEqual(['flush sent', 'delivered', 'flush answered']);
  });

  it('sends nothing to a channel that writes in order once a write the log holds has failed', async () => {
    const { output, events } = ordered(true, new Error('record not saved'));
    await expect(output.part(turn('web', [answer]), answer)).rejects.toThrow('record not saved');
    expect(events).toEqual([]);
  });
});
