import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isGsm7, smsSegmentCount } from 'switchboard';
import { testTool, toolContext } from 'switchboard/testing';
import { appBookingLedger, type Booking } from './_bookings.ts';
import { allFlights } from './_flights.ts';
import { createUpcomingTripsTool, gsmFriendly, NO_TRIPS, tripSummary, upcomingTrip, type UpcomingTrip } from './upcoming_trips.ts';

const appDir = mkdtempSync(join(tmpdir(), 'switchboard-upcoming-'));
afterAll(() => {
  rmSync(appDir, { recursive: true, force: true });
});

const NOW = new Date('2026-12-01T00:00:00Z');
const ledger = appBookingLedger(appDir);
const tool = createUpcomingTripsTool({ ledger, clock: () => NOW });
const asAda = toolContext({ actorName: 'concierge', sessionId: 'session-1', turnId: 'turn-1', personId: 'ada' });

/** The first `count` flights of the dataset as bookings, reference `SBTEST<nn>`, for `names`. */
async function bookings(count: number, names: readonly string[] = ['Ada Lovelace']): Promise<Booking[]> {
  const flights = (await allFlights()).slice(0, count);
  return flights.map((flight, index) => ({
    bookingReference: `SBTEST${String(index).padStart(2, '0')}`,
    status: 'confirmed',
    flight: { flightNumber: flight.flightNumber, airline: flight.airline, origin: flight.origin, destination: flight.destination, departure: flight.departure, arrival: flight.arrival },
    passengers: names.map((fullName) => ({ fullName })),
    totalCost: flight.pricePerPerson * names.length,
    currency: flight.currency,
  }));
}

function trips(list: readonly Booking[]): UpcomingTrip[] {
  return [...list].sort((a, b) => Date.parse(a.flight.departure) - Date.parse(b.flight.departure)).map(upcomingTrip);
}

describe('upcoming_trips', () => {
  it('returns the caller\'s upcoming bookings, soonest first, and their summary', async () => {
    const [first, second] = await bookings(2);
    if (first === undefined || second === undefined) throw new Error('the dataset has fewer than 2 flights');
    await ledger.record('person:ada', second);
    await ledger.record('person:ada', first);
    await ledger.record('person:grace', { ...first, bookingReference: 'SBGRACE1' });
    const result = await tool.handler({}, asAda);
    expect(result.trips).toEqual([
      { bookingReference: 'SBTEST00', flightNumber: 'MW 304', origin: 'LHR', destination: 'CDG', departure: '2026-12-18T07:25:00+00:00', departs: 'Fri 18 Dec 2026, 07:25', travellers: ['Ada Lovelace'] },
      expect.objectContaining({ bookingReference: 'SBTEST01', flightNumber: 'AU 1021' }),
    ]);
    expect(result.summary).toBe(
      [
        'Upcoming trips (local times):',
        'Fri 18 Dec 07:25 MW 304 LHR->CDG, Ada Lovelace, ref SBTEST00',
        'Fri 18 Dec 09:10 AU 1021 LHR->CDG, Ada Lovelace, ref SBTEST01',
      ].join('\n'),
    );
    const later = createUpcomingTripsTool({ ledger, clock: () => new Date('2026-12-18T08:00:00Z') });
    expect((await later.handler({}, asAda)).trips.map((trip) => trip.bookingReference)).toEqual(['SBTEST01']);
    const stranger = toolContext({ actorName: 'concierge', sessionId: 'session-2', turnId: 'turn-1' });
    expect(await tool.handler({}, stranger)).toEqual({ trips: [], summary: NO_TRIPS });
  });

  it('is a read-only generalist tool without approval, with no arguments', () => {
    const tested = testTool(tool);
    expect(tested.tool).toMatchObject({ name: 'upcoming_trips', scope: 'generalist', requiresApproval: false, tags: ['read', 'travel'] });
    expect(tested.argumentError({})).toBeUndefined();
    expect(tested.argumentError({ person: 'ada' })).toBeDefined();
  });

  it.each([0, 1, 3, 12])('summarises %i trips in at most two GSM-7 segments, the soonest first', async (count) => {
    const list = trips(await bookings(count, ['Ada Lovelace', 'Charles Babbage']));
    const summary = tripSummary(list);
    expect(isGsm7(summary)).toBe(true);
    expect(smsSegmentCount(summary)).toBeLessThanOrEqual(2);
    if (count === 0) expect(summary).toBe(NO_TRIPS);
    else expect(summary).toContain(`MW 304 LHR->CDG, Ada Lovelace +1, ref SBTEST00`);
    const shown = summary.split('\n').filter((line) => line.includes(', ref SB')).length;
    expect(shown).toBeGreaterThanOrEqual(Math.min(count, 1));
    if (shown < count) expect(summary.endsWith(`\n+${count - shown} more`)).toBe(true);
    if (count === 3) expect(shown).toBe(3);
  });

  it('writes accented names in GSM-7 where it can, and counts what stays UCS-2', async () => {
    expect(gsmFriendly('Zoë Šimić-Nguyễn’s')).toBe("Zoe Simic-Nguyen's");
    expect(gsmFriendly('Renée Ødegård Müller')).toBe('Renée Ødegård Müller');
    const accented = tripSummary(trips(await bookings(12, ['Zoë Šimić'])));
    expect(accented).toContain(', Zoe Simic, ref ');
    expect(isGsm7(accented)).toBe(true);
    expect(smsSegmentCount(accented)).toBeLessThanOrEqual(2);

    for (const name of ['王小明', 'Łukasz Żółć 🙂', 'Wolfeschlegelsteinhausenbergerdorff Sr.']) {
      for (const count of [1, 3, 12]) {
        const summary = tripSummary(trips(await bookings(count, [name])));
        expect(smsSegmentCount(summary), `${name}, ${count}`).toBeLessThanOrEqual(2);
        expect(summary, `${name}, ${count}`).toContain('MW 304 LHR->CDG');
      }
    }
    expect(tripSummary(trips(await bookings(1, ['Wolfeschlegelsteinhausenbergerdorff Sr.'])))).toContain(', Wolfeschlegelsteinhau..., ref');
  });
});
