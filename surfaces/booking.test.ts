import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSurfaceMessage } from 'switchboard';
import { toolContext } from 'switchboard/testing';
import { appBookingLedger } from '../tools/_bookings.ts';
import { createBookFlightTool, type BookFlightArgs } from '../tools/book_flight.ts';
import booking from './booking.ts';
import { render, templateContext } from './_rendered.ts';

// A ledger of its own, so that the tests leave the example app's .data/ alone.
const appDir = mkdtempSync(join(tmpdir(), 'switchboard-booking-surface-'));
afterAll(() => {
  rmSync(appDir, { recursive: true, force: true });
});
const bookFlight = createBookFlightTool(appBookingLedger(appDir));

const TWO_ON_MW304: BookFlightArgs = {
  flightNumber: 'MW 304',
  date: '2026-12-18',
  passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }],
  totalCost: 236,
  currency: 'GBP',
};

async function booked(args: BookFlightArgs, sessionId: string) {
  return (await bookFlight.handler(args, toolContext({ actorName: 'concierge', sessionId, turnId: 'turn-1' }))).domainData.data;
}

describe('the booking surface', () => {
  it('shows a real booking: its reference, the flight, the local times, the travellers and the total', async () => {
    const data = await booked(TWO_ON_MW304, 'session-booking-surface');
    const message = booking(data, templateContext('booking'));
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(render(message).texts).toEqual([
      'Booking confirmed',
      `Reference ${data.bookingReference}`,
      'MW 304 · Meridian Airways',
      'LHR → CDG',
      'Fri 18 Dec 2026: departs 07:25, arrives 09:40 (local times)',
      'Travellers:',
      'Ada Lovelace',
      'Charles Babbage',
      'Total paid: GBP 236.00',
    ]);
  });

  it('shows one Card per booking when bookings are appended', async () => {
    const first = await booked(TWO_ON_MW304, 'session-booking-append-1');
    const second = await booked({ ...TWO_ON_MW304, passengers: [{ fullName: 'Grace Hopper' }], totalCost: 118 }, 'session-booking-append-2');
    const message = booking([first, second], { ...templateContext('booking'), mergeStrategy: 'append' });
    expect(checkSurfaceMessage(message)).toEqual([]);
    const { texts } = render(message);
    expect(texts.filter((text) => text.startsWith('Reference '))).toEqual([`Reference ${first.bookingReference}`, `Reference ${second.bookingReference}`]);
    expect(texts).toContain('Grace Hopper');
  });

  it('throws on data that is not a booking, so the envelope goes without it', () => {
    expect(() => booking({ bookingReference: 'SB123456' }, templateContext('booking'))).toThrow('"flight" should be an object');
  });
});
