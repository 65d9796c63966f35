import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testTool, toolContext } from 'switchboard/testing';
import { appBookingLedger } from './_bookings.ts';
import { createBookFlightTool, type BookFlightArgs, type BookFlightResult } from './book_flight.ts';

// A ledger of its own, so that the tests leave the example app's .data/ alone.
const appDir = mkdtempSync(join(tmpdir(), 'switchboard-book-flight-'));
afterAll(() => {
  rmSync(appDir, { recursive: true, force: true });
});
const ledger = appBookingLedger(appDir);
const bookFlight = createBookFlightTool(ledger);

function context(sessionId: string, turnId = 'turn-1', personId?: string): ReturnType<typeof toolContext> {
  return toolContext({ actorName: 'concierge', sessionId, turnId, personId });
}

const TWO_ON_MW304: BookFlightArgs = {
  flightNumber: 'MW 304',
  date: '2026-12-18',
  passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }],
  totalCost: 236,
  currency: 'GBP',
};

async function book(args: BookFlightArgs, sessionId: string, turnId?: string): Promise<BookFlightResult> {
  return bookFlight.handler(args, context(sessionId, turnId));
}

describe('book_flight', () => {
  it('confirms a booking whose total matches the fare', async () => {
    const result = await book(TWO_ON_MW304, 'session-confirm');
    expect(result).toMatchObject({
      status: 'confirmed',
      flight: { flightNumber: 'MW 304', airline: 'Meridian Airways', origin: 'LHR', destination: 'CDG', departure: '2026-12-18T07:25:00+00:00', arrival: '2026-12-18T09:40:00+01:00' },
      passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }],
      totalCost: 236,
      currency: 'GBP',
    });
    expect(result.bookingReference).toMatch(/^SB[A-HJ-NP-Z2-9]{6}$/);
    const { domainData, ...booking } = result;
    expect(domainData).toEqual({ kind: 'booking', data: booking });
  });

  it('returns the same booking when the same call is retried', async () => {
    const first = await book(TWO_ON_MW304, 'session-retry');
    const again = await book(TWO_ON_MW304, 'session-retry');
    expect(again).toEqual(first);
    const spaced = await book({ ...TWO_ON_MW304, flightNumber: 'mw304', passengers: [{ fullName: ' ada  lovelace ' }, { fullName: 'Charles Babbage' }] }, 'session-retry');
    expect(spaced.bookingReference).toBe(first.bookingReference);
  });

  it('gives another session or turn another reference', async () => {
    const first = await book(TWO_ON_MW304, 'session-a');
    expect((await book(TWO_ON_MW304, 'session-b')).bookingReference).not.toBe(first.bookingReference);
    expect((await book(TWO_ON_MW304, 'session-a', 'turn-2')).bookingReference).not.toBe(first.bookingReference);
  });

  it('records each booking once in the ledger, under the person, else the session', async () => {
    const now = new Date('2026-12-01T00:00:00Z');
    const asAda = context('session-ledger', 'turn-1', 'ada');
    const first = await bookFlight.handler(TWO_ON_MW304, asAda);
    await bookFlight.handler(TWO_ON_MW304, asAda);
    // Another process (or this one after a restart) retrying the same call: the same reference, not written again.
    await createBookFlightTool(ledger).handler(TWO_ON_MW304, asAda);
    const anonymous = await book({ flightNumber: 'SL 518', date: '2026-12-18', passengers: [{ fullName: 'Lin Chen' }], totalCost: 64, currency: 'EUR' }, 'session-unknown');
    const lines = readFileSync(ledger.file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { owner: string; booking: { bookingReference: string } });
    expect(lines.filter((line) => line.booking.bookingReference === first.bookingReference)).toEqual([expect.objectContaining({ owner: 'person:ada' })]);
    expect((await ledger.upcoming('person:ada', now)).map((booking) => booking.bookingReference)).toEqual([first.bookingReference]);
    expect((await ledger.upcoming('session:session-unknown', now)).map((booking) => booking.bookingReference)).toEqual([anonymous.bookingReference]);
  });

  it('refuses a total that does not match the fare, and books nothing', async () => {
    await expect(book({ ...TWO_ON_MW304, totalCost: 118 }, 'session-cost')).rejects.toThrow(
      'totalCost GBP 118.00 does not match the fare: 2 x GBP 118.00 = GBP 236.00. Nothing was booked. ' +
        'Tell the person the total is GBP 236.00 and, once they agree, call book_flight again with totalCost 236.',
    );
    expect((await book(TWO_ON_MW304, 'session-cost')).totalCost).toBe(236);
  });

  it('refuses an unknown flight, another currency and too few seats', async () => {
    await expect(book({ ...TWO_ON_MW304, date: '2026-12-19' }, 'session-refuse')).rejects.toThrow(
      'There is no flight MW 304 departing on 2026-12-19. Nothing was booked.',
    );
    await expect(book({ ...TWO_ON_MW304, currency: 'EUR' }, 'session-refuse')).rejects.toThrow('MW 304 is priced in GBP, not EUR.');
    const three = [{ fullName: 'A B' }, { fullName: 'C D' }, { fullName: 'E F' }];
    await expect(book({ ...TWO_ON_MW304, flightNumber: 'MW 312', passengers: three, totalCost: 438 }, 'session-refuse')).rejects.toThrow(
      'MW 312 on 2026-12-18 has only 2 seats left, not 3.',
    );
  });

  it('auto-approves 42 and requires approval for 120 (CEL policy, as the registry evaluates it)', async () => {
    const tool = testTool(bookFlight);
    const ctx = { actorName: 'concierge', sessionId: 'session-policy', turnId: 'turn-1' };
    expect(await tool.needsApproval({ ...TWO_ON_MW304, totalCost: 42 }, ctx)).toMatchObject({ required: false, source: 'expression' });
    expect(await tool.needsApproval({ ...TWO_ON_MW304, totalCost: 120 }, ctx)).toMatchObject({ required: true, source: 'expression' });
  });

  it('validates its arguments and output against its schemas', async () => {
    const tool = testTool(bookFlight);
    expect(tool.argumentError(TWO_ON_MW304)).toBeUndefined();
    expect(tool.argumentError({ ...TWO_ON_MW304, passengers: [] })).toMatch(/passengers/);
    expect(tool.argumentError({ ...TWO_ON_MW304, currency: 'USD' })).toMatch(/currency/);
    expect(tool.argumentError({ ...TWO_ON_MW304, passengers: [{ fullName: ' ' }] })).toMatch(/fullName/);
    expect(tool.outputError(await book(TWO_ON_MW304, 'session-schema'))).toBeUndefined();
  });
});
