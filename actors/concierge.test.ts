/**
 * The example's actors in whole turns, as an app author tests theirs: `switchboard/testing` runs
 * them on the real runtime with scripted model answers. (Bookings are tested on a copy of the app,
 * in test/app/testing-kit.test.ts, so that this folder's .data/ stays as it is.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, callTool, respond, startTestBot, type TestBot } from 'switchboard/testing';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ app: new URL('..', import.meta.url) });
}, 30_000);
afterAll(async () => {
  await bot.close();
});

describe('the concierge', () => {
  it('asks one clarify question when the day is missing, and the turn waits for the answer', async () => {
    const turn = await bot.send('Flights to Paris for two', {
      model: [respond([{ partType: 'clarify', text: 'Which day, and from which airport?' }], 'clarifying')],
    });
    expect(turn.turnState).toBe('clarifying');
    expect(turn.text('clarify')).toBe('Which day, and from which airport?');
    expect(turn.toolCalls).toEqual([]);
  });

  it('searches, and its answer carries the flights as domain data', async () => {
    const turn = await bot.send('London to Paris on 18 December, two travellers', {
      model: [callTool('search_flights', { origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 }), answer('MW 304 at 07:25, £236 for two.')],
    });
    expect(turn.toolCalls.map((call) => [call.name, call.outcome])).toEqual([['search_flights', 'ok']]);
    const data = turn.envelope?.parts.find((part) => part.metadata.partType === 'domain-data');
    expect(JSON.stringify(data)).toContain('MW 304');
  });

  it('passes a writing request to the drafter, which answers in the same turn', async () => {
    const turn = await bot.send('Write an email to Grace saying when I land', {
      model: [
        respond([{ partType: 'ack', text: 'Handing this to our writer.' }], 'passed', { passTo: 'drafter', note: 'email to Grace with the arrival time' }),
        (call) => answer(call.system.includes('polished messages') ? 'Subject: Arriving Friday' : 'wrong actor'),
      ],
    });
    expect(turn).toMatchObject({ turnState: 'complete', actor: 'drafter' });
    expect(turn.text()).toBe('Subject: Arriving Friday');
  });
});
