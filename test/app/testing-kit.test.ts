/**
 * `switchboard/testing` on the example app, copied to a folder of its own (so bookings land in the
 * copy's `.data/`): real turns with the real registry, respond() validation and approvals, against
 * scripted model answers.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, callTool, respond, startTestBot, testTool, type TestBot } from 'switchboard/testing';
import { createBookFlightTool } from '../../tools/book_flight.ts';
import { appBookingLedger } from '../../tools/_bookings.ts';
import { copyExampleApp } from '../support/example-app-copy.ts';

const appDir = copyExampleApp('sb-testing-kit-');

const SEARCH = { origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 };
const BOOKING = { flightNumber: 'MW 304', date: '2026-12-18', passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }], totalCost: 236, currency: 'GBP' };

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ app: appDir });
}, 30_000);
afterAll(async () => {
  await bot.close();
  rmSync(appDir, { recursive: true, force: true });
});

describe('startTestBot', () => {
  it('loads the app: its actors and its tools, notify included', () => {
    expect(bot.app.name).toBe('travel-concierge');
    expect(bot.app.actors).toEqual(expect.arrayContaining(['concierge', 'drafter']));
    expect(bot.app.tools).toEqual(expect.arrayContaining(['search_flights', 'book_flight']));
  });

  it('runs a tool call and the answer, and reports the call, its result, the parts and the envelope', async () => {
    let seen = '';
    const turn = await bot.send('London to Paris on 18 December, two of us', {
      model: [
        callTool('search_flights', SEARCH),
        (call) => {
          seen = call.toolResults[0]?.name ?? '';
          return answer('MW 304 leaves at 07:25.');
        },
      ],
    });
    expect(seen).toBe('search_flights');
    expect(turn).toMatchObject({ turnState: 'complete', settled: true, actor: 'concierge' });
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({ name: 'search_flights', args: SEARCH, outcome: 'ok' });
    expect(JSON.stringify(turn.toolCalls[0]?.result)).toContain('MW 304');
    expect(turn.text()).toBe('MW 304 leaves at 07:25.');
    expect(turn.envelope?.parts.map((part) => part.metadata.partType)).toEqual(expect.arrayContaining(['response', 'domain-data']));
  });

  it('keeps the conversation: a second message sees the first turn in its history', async () => {
    let messages = 0;
    await bot.send('hello', { from: { address: 'history-tester' }, model: [answer('Hello.')] });
    await bot.send('again', { from: { address: 'history-tester' }, model: [(call) => { messages = call.messages.length; return answer('Hello again.'); }] });
    expect(messages).toBeGreaterThanOrEqual(3);
  });

  it('answers an invalid respond() call with a correction, which takes the next step', async () => {
    const turn = await bot.send('hi', { model: [respond([{ partType: 'no-such-part', text: 'x' }], 'complete'), answer('Hello!')] });
    expect(turn.turnState).toBe('complete');
    expect(turn.violations.length).toBeGreaterThan(0);
    expect(turn.text()).toBe('Hello!');
  });

  it('reports arguments that do not match a schema as an error outcome with what the model was told', async () => {
    const turn = await bot.send('Paris', { model: [callTool('search_flights', { origin: 'LHR' }), answer('Which day?')] });
    expect(turn.toolCalls[0]).toMatchObject({ name: 'search_flights', outcome: 'error' });
    expect(turn.toolCalls[0]?.error).toMatch(/destination/);
  });

  it('suspends a booking that needs approval, and runs it once the requester approves', async () => {
    const asked = await bot.send('Book MW 304 for Ada and Charles', { from: 'ada', model: [callTool('book_flight', BOOKING)] });
    expect(asked).toMatchObject({ turnState: 'suspended', settled: false });
    expect(asked.approvals).toEqual([expect.objectContaining({ toolName: 'book_flight', args: BOOKING })]);
    expect(asked.toolCalls).toEqual([expect.objectContaining({ name: 'book_flight', outcome: 'awaiting-approval' })]);
    expect(asked.parts.map((part) => part.partType)).toContain('approval-request');
    const approval = asked.approvals[0];
    if (approval === undefined) throw new Error('no approval');

    const done = await bot.approve(approval, { model: [(call) => answer(`Booked: ${call.toolResults[0]?.content.match(/SB[A-Z0-9]{6}/)?.[0] ?? '?'}`)] });
    expect(done).toMatchObject({ turnState: 'complete', turnId: asked.turnId });
    expect(done.toolCalls[0]).toMatchObject({ name: 'book_flight', outcome: 'ok', result: expect.objectContaining({ status: 'confirmed' }) as unknown });
    expect(done.text()).toMatch(/^Booked: SB[A-HJ-NP-Z2-9]{6}$/);
    await expect(bot.approve(approval)).rejects.toThrow(/refused/);
  });

  it('tells the model a denial, and the turn goes on', async () => {
    const asked = await bot.send('Book it', { from: { address: 'denied-tester' }, model: [callTool('book_flight', BOOKING)] });
    const approval = asked.approvals[0];
    if (approval === undefined) throw new Error('no approval');
    let told = '';
    const done = await bot.deny(approval, { model: [(call) => { told = call.toolResults[0]?.content ?? ''; return answer('Not booked.'); }] });
    expect(told).toMatch(/denied/i);
    expect(done.toolCalls[0]).toMatchObject({ outcome: 'error' });
    expect(done.turnState).toBe('complete');
  });

  it('rejects a script that runs out, naming the fix, and one with steps left over', async () => {
    await expect(bot.send('search', { model: [callTool('search_flights', SEARCH)] })).rejects.toThrow(/asked for another model call/);
    await expect(bot.send('hi', { model: [answer('Hi.'), answer('Again.')] })).rejects.toThrow(/1 step of the model script unused/);
  });

  it('records what notify sends instead of sending it', async () => {
    const turn = await bot.send('text me', { from: 'ada', model: [callTool('notify', { person: 'me', channel: 'email', text: 'Your trips' }), answer('Sent.')] });
    expect(turn.toolCalls[0]).toMatchObject({ name: 'notify', outcome: 'ok' });
    expect(bot.notifications.at(-1)).toEqual({ destination: expect.objectContaining({ channel: 'email', address: 'ada@example.com' }) as unknown, text: 'Your trips' });
  });

  it("answers with a terminal tool's text, and puts its data in the envelope with the app's surface", async () => {
    const booking = { bookingReference: 'SBTEST01', flightNumber: 'MW 304', origin: 'LHR', destination: 'CDG', departure: '2026-12-18T07:25:00+00:00', arrival: '2026-12-18T09:40:00+01:00' };
    const turn = await bot.send('my itinerary please', { model: [callTool('format_itinerary', { bookings: [booking] })] });
    expect(turn.turnState).toBe('complete');
    expect(turn.text()).toMatch(/^Itinerary\n\nFlight 1 of 1: MW 304/);
    const kinds = turn.envelope?.parts.map((part) => part.metadata.partType);
    expect(kinds).toEqual(expect.arrayContaining(['response', 'domain-data', 'a2ui-surface']));
    const surface = turn.envelope?.parts.find((part) => part.metadata.partType === 'a2ui-surface');
    expect(JSON.stringify(surface?.data)).toContain('SBTEST01');
  });

  it('names a person who is not in switchboard.yaml', async () => {
    await expect(bot.send('hi', { from: 'nobody', model: [answer('Hi.')] })).rejects.toThrow(/not a person of switchboard.yaml/);
  });
});

describe('testTool', () => {
  const bookFlight = testTool(createBookFlightTool(appBookingLedger(appDir)));

  it('checks arguments against the schema, with the message the model would get', async () => {
    expect(bookFlight.argumentError(BOOKING)).toBeUndefined();
    expect(bookFlight.argumentError({ ...BOOKING, passengers: [] })).toMatch(/passengers/);
    await expect(bookFlight.call({ ...BOOKING, passengers: [] })).rejects.toThrow(/passengers/);
  });

  it('evaluates the approval policy', async () => {
    expect((await bookFlight.needsApproval(BOOKING)).required).toBe(true);
    expect((await bookFlight.needsApproval({ ...BOOKING, passengers: [{ fullName: 'Ada Lovelace' }], totalCost: 42 })).required).toBe(false);
  });

  it('refuses a definition the service would refuse', () => {
    expect(() => testTool({ name: 'Bad Name', description: 'x', scope: 'generalist', inputSchema: { type: 'object' }, handler: () => 'x' })).toThrow(/name/);
  });
});
