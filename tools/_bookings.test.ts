import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appBookingLedger, bookingOwner, createBookingLedger, type Booking } from './_bookings.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-bookings-'));
  dirs.push(dir);
  return dir;
}

function booking(reference: string, departure: string): Booking {
  return {
    bookingReference: reference,
    status: 'confirmed',
    flight: { flightNumber: 'MW 304', airline: 'Meridian Airways', origin: 'LHR', destination: 'CDG', departure, arrival: departure },
    passengers: [{ fullName: 'Ada Lovelace' }],
    totalCost: 118,
    currency: 'GBP',
  };
}

const NOW = new Date('2026-12-18T12:00:00Z');

describe('the booking ledger', () => {
  it('keeps bookings per owner in <app>/.data/bookings.jsonl, creating the folder', async () => {
    const dir = await tempDir();
    const ledger = appBookingLedger(dir);
    expect(ledger.file).toBe(join(dir, '.data', 'bookings.jsonl'));
    expect(await ledger.upcoming('person:ada', NOW)).toEqual([]);
    expect(await ledger.record('person:ada', booking('SBAAAAAA', '2026-12-20T08:00:00+01:00'))).toBe(true);
    expect(await ledger.record('person:grace', booking('SBBBBBBB', '2026-12-21T08:00:00+01:00'))).toBe(true);
    expect((await ledger.upcoming('person:ada', NOW)).map((entry) => entry.bookingReference)).toEqual(['SBAAAAAA']);
    expect((await ledger.upcoming('person:grace', NOW)).map((entry) => entry.bookingReference)).toEqual(['SBBBBBBB']);
    const lines = (await readFile(ledger.file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ owner: 'person:ada', booking: { bookingReference: 'SBAAAAAA' } });
  });

  it('records a reference once', async () => {
    const ledger = createBookingLedger(join(await tempDir(), 'nested', 'bookings.jsonl'));
    expect(await ledger.record('person:ada', booking('SBAAAAAA', '2026-12-20T08:00:00+01:00'))).toBe(true);
    expect(await ledger.record('person:ada', booking('SBAAAAAA', '2026-12-20T08:00:00+01:00'))).toBe(false);
    expect((await readFile(ledger.file, 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('returns only departures after now, soonest first by instant, each reference once, skipping broken lines', async () => {
    const ledger = createBookingLedger(join(await tempDir(), 'bookings.jsonl'));
    await ledger.record('person:ada', booking('SBLATER1', '2027-01-04T13:55:00+01:00'));
    await ledger.record('person:ada', booking('SBGONE11', '2026-12-18T07:25:00+00:00'));
    // 12:30 in Lisbon (UTC) departs after 13:10 in Paris (12:10 UTC).
    await ledger.record('person:ada', booking('SBLISBON', '2026-12-18T12:30:00+00:00'));
    await ledger.record('person:ada', booking('SBPARIS1', '2026-12-18T13:10:00+01:00'));
    const duplicate = { owner: 'person:ada', recordedAt: NOW.toISOString(), booking: booking('SBPARIS1', '2026-12-30T08:00:00+01:00') };
    await appendFile(ledger.file, `${JSON.stringify(duplicate)}\nnot json\n{"owner":"person:ada","booking":{"bookingRef`);
    expect((await ledger.upcoming('person:ada', NOW)).map((entry) => entry.bookingReference)).toEqual(['SBPARIS1', 'SBLISBON', 'SBLATER1']);
    expect(await ledger.record('person:ada', booking('SBNEXT11', '2026-12-19T08:00:00+01:00'))).toBe(true);
    expect((await ledger.upcoming('person:ada', NOW)).map((entry) => entry.bookingReference)).toContain('SBNEXT11');
  });

  it('files a booking under the known person, else under the session', () => {
    expect(bookingOwner({ sessionId: 's-1', personId: 'ada' })).toBe('person:ada');
    expect(bookingOwner({ sessionId: 's-1' })).toBe('session:s-1');
  });
});
