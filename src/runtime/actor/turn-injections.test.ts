import { describe, expect, it } from 'vitest';
import type { Injection } from '../injection.ts';
import type { EventLogEntry } from '../session/event-log.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { LiveTurn } from './live-turn.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { gatherInjections } from './turn-injections.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

const message: Injection = {
  id: 'web:conv-1:m1',
  kind: 'message',
  channel: 'web',
  tenantId: 'default',
  conversationKey: 'conv-1',
  sender: { id: 'web:b_1', verified: true },
  text: 'Show me flights to Lisbon',
  replyTo: { channel: 'web', address: 'conv-1' },
  receivedAt: '2026-03-01T12:00:00.000Z',
};

const press: Injection = {
  ...message,
  id: 'web:conv-1:action:press-1',
  kind: 'user-action',
  text: '[action] book',
  data: { surfaceId: 'flight-results', name: 'book', context: { flight: 'BA123' } },
};

const record: TurnRecord = {
  turnId: 'turn-1',
  sessionId: 'default:web:conv-1',
  actor: 'main',
  startedAt: '2026-03-01T12:00:00.000Z',
  deadlineAt: '2026-03-01T12:05:00.000Z',
  step: 1,
  corrective: 0,
  handoffs: 0,
  given: 1,
  messages: [{ role: 'user', content: [{ type: 'text', text: message.text }] }],
  status: 'running',
  emitted: [],
  dataEvents: [],
  replyTo: message.replyTo,
};

/** Just what gatherInjections reads of the runner's dependencies: the mailbox to steer from and the log. */
function depsWith(mailbox: readonly Injection[], logged: EventLogEntry[]): TurnRunnerDeps {
  const deps = {
    store: { steer: () => Promise.resolve(mailbox) },
    log: { append: (_sessionId: string, entry: EventLogEntry) => Promise.resolve(String(logged.push(entry))) },
  };
  return deps as unknown as TurnRunnerDeps;
}

const steering = { config: { midTurn: 'steer' } } as unknown as ResolvedActor;

describe('gatherInjections with a pressed Button', () => {
  it('takes an action that came mid-turn into the running turn, marked, and logs the action', async () => {
    const logged: EventLogEntry[] = [];
    const turn: LiveTurn = { record, inbox: [message], history: [] };
    await gatherInjections(depsWith([message, press], logged), turn, steering);
    expect(turn.record.given).toBe(2);
    const added = turn.record.messages.at(-1);
    expect(added?.role).toBe('user');
    expect(added?.content).toEqual([
      {
        type: 'text',
        text: '[user-action] The person pressed "book" on surface "flight-results" in the chat; they did not type this. Action context (JSON): {"flight":"BA123"}',
      },
    ]);
    expect(logged).toEqual([
      {
        type: 'injection',
        turnId: 'turn-1',
        actor: 'main',
        data: { id: press.id, kind: 'user-action', channel: 'web', sender: press.sender, receivedAt: press.receivedAt, text: press.text, content: { source: 'ui-action', trusted: true }, action: { name: 'book', surfaceId: 'flight-results', context: { flight: 'BA123' } } },
      },
    ]);
  });
});
