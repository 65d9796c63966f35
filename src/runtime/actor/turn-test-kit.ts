/**
 * Sample turns for the actor's unit tests: a person's message on a channel and a fresh turn
 * record answering it, each with what a test changes laid over it.
 */
import type { Injection } from '../injection.ts';
import { freshTurnRecord, type TurnRecord } from '../session/turn-record.ts';

/** A verified person's message on `channel`, in conversation `c1`, at 2026-03-01 12:00 UTC. */
export function sampleMessage(channel: string, overrides: Partial<Injection> = {}): Injection {
  return {
    id: `${channel}:c1:1`,
    kind: 'message',
    channel,
    tenantId: 'default',
    conversationKey: 'c1',
    sender: { id: 'person-1', verified: true },
    text: 'Book it',
    replyTo: { channel, address: 'c1' },
    receivedAt: '2026-03-01T12:00:00.000Z',
    ...overrides,
  };
}

/** A turn of actor `main` at step 0, started at 12:00 with five minutes to run, answering `first`. */
export function sampleTurnRecord(first: Injection, overrides: Partial<TurnRecord> = {}): TurnRecord {
  const sessionId = `default:${first.channel}:${first.conversationKey}`;
  const fresh = freshTurnRecord({ turnId: 'turn-1', sessionId, actor: 'main', at: Date.parse('2026-03-01T12:00:00.000Z'), deadlineMs: 300_000, replyTo: first.replyTo });
  return { ...fresh, ...overrides };
}
