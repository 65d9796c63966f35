import { describe, expect, it } from 'vitest';
import { parseRespondCall } from './parse-respond-call.ts';

const origin = { sessionId: 'sess_1', turnId: 'turn_1', actorName: 'concierge', toolUseId: 'toolu_1' };

describe('parseRespondCall', () => {
  it('emits a partReceived per part in order, then one turnStateChanged', () => {
    const events = parseRespondCall(
      {
        parts: [
          { text: 'Found 2 flights.', metadata: { partType: 'response' } },
          { data: { flights: [] }, metadata: { partType: 'domain-data' } },
        ],
        turnState: 'complete',
      },
      origin,
    );
    expect(events.map((event) => event.type)).toEqual(['partReceived', 'partReceived', 'turnStateChanged']);
    expect(events[0]).toMatchObject({ partType: 'response', turnState: 'complete', index: 0, actorName: 'concierge' });
    expect(events[1]).toMatchObject({ partType: 'domain-data', index: 1 });
    expect(events[2]).toEqual({ type: 'turnStateChanged', ...origin, turnState: 'complete' });
  });

  it('carries passTo and the note on the state change', () => {
    const events = parseRespondCall(
      { parts: [{ text: 'Over to the drafter.', metadata: { partType: 'thinking' } }], turnState: 'passed', passTo: 'drafter', note: 'handoff' },
      origin,
    );
    expect(events.at(-1)).toMatchObject({ type: 'turnStateChanged', turnState: 'passed', passTo: 'drafter', note: 'handoff' });
  });
});
