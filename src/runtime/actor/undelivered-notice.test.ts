import { describe, expect, it } from 'vitest';
import type { LiveTurn } from './live-turn.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { gatherInjections } from './turn-injections.ts';
import { sampleMessage, sampleTurnRecord } from './turn-test-kit.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';
import { undeliveredNotice, type MissedMessage } from './undelivered-notice.ts';

const message = sampleMessage('slack', { id: 'slack:T1:C1:1', conversationKey: 'C1', sender: { id: 'U1', verified: true }, text: 'Did it work?', replyTo: { channel: 'slack', address: 'C1' } });
const fresh = sampleTurnRecord(message, { turnId: 'turn-2' });

const missed: MissedMessage[] = [{ at: '2026-03-01T11:58:00.000Z', channel: 'slack', excerpt: 'Your table is booked for 8 pm.' }];

/** What gatherInjections reads, with the notes of `notes` taken once per session. */
function deps(notes: Map<string, MissedMessage[]>, asked: string[]): TurnRunnerDeps {
  return {
    store: { steer: () => Promise.resolve([message]) },
    log: { append: () => Promise.resolve('1') },
    takeUndelivered: (sessionId: string) => {
      asked.push(sessionId);
      const taken = notes.get(sessionId) ?? [];
      notes.delete(sessionId);
      return Promise.resolve(taken);
    },
  } as unknown as TurnRunnerDeps;
}

const actor = { config: {} } as unknown as ResolvedActor;

describe('the next turn after an undelivered message', () => {
  it('tells the model before the new message, once', async () => {
    const asked: string[] = [];
    const turn: LiveTurn = { record: fresh, inbox: [message], history: [] };
    const runner = deps(new Map([[fresh.sessionId, missed]]), asked);
    await gatherInjections(runner, turn, actor);
    const [notice, said] = turn.record.messages[0]?.content ?? [];
    expect(notice).toEqual(undeliveredNotice(missed));
    expect(said).toEqual({ type: 'text', text: 'Did it work?' });
    expect(asked).toEqual([fresh.sessionId]);

    // Later steps of the same turn do not ask again.
    await gatherInjections(runner, turn, actor);
    expect(asked).toHaveLength(1);
  });

  it('does not ask when the turn\'s begin found no note waiting, and asks when it found one', async () => {
    const asked: string[] = [];
    const none: LiveTurn = { record: fresh, inbox: [message], history: [], notesWaiting: false };
    await gatherInjections(deps(new Map([[fresh.sessionId, missed]]), asked), none, actor);
    expect(asked).toEqual([]);
    expect(none.record.messages[0]?.content).toEqual([{ type: 'text', text: 'Did it work?' }]);
    const some: LiveTurn = { record: fresh, inbox: [message], history: [], notesWaiting: true };
    await gatherInjections(deps(new Map([[fresh.sessionId, missed]]), asked), some, actor);
    expect(asked).toEqual([fresh.sessionId]);
    expect(some.record.messages[0]?.content[0]).toEqual(undeliveredNotice(missed));
  });

  it('adds nothing when nothing was missed', async () => {
    const turn: LiveTurn = { record: fresh, inbox: [message], history: [] };
    await gatherInjections(deps(new Map(), []), turn, actor);
    expect(turn.record.messages[0]?.content).toEqual([{ type: 'text', text: 'Did it work?' }]);
  });

  it('names each missed message by its start, channel and time', () => {
    const block = undeliveredNotice([...missed, { at: '2026-03-01T11:59:00.000Z', channel: 'sms' }]);
    expect(block.type === 'text' ? block.text : '').toMatch(
      /^\[delivery-notice\] 2 messages of yours .*\n1\. the message that began "Your table is booked for 8 pm\." \(slack, given up at 2026-03-01T11:58:00\.000Z\)\n2\. a message without text \(sms, given up at 2026-03-01T11:59:00\.000Z\)$/s,
    );
  });
});
