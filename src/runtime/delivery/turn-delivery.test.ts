import { describe, expect, it } from 'vitest';
import { createSurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import { createPartTypeRegistry } from '../../protocol/parts/canonical-part-types.ts';
import type { Part } from '../../protocol/parts/part.ts';
import { createTurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { EventLog } from '../session/event-log.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';
import { createSettlement } from './settle-turn.ts';
import { createTurnDelivery, type Delivery } from './turn-delivery.ts';

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
