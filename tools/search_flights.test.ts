import { describe, expect, it } from 'vitest';
import { testTool, toolContext } from 'switchboard/testing';
import searchFlights, { type SearchFlightsArgs, type SearchFlightsResult } from './search_flights.ts';

const ctx = toolContext({ actorName: 'concierge', sessionId: 'session-search', turnId: 'turn-1' });

async function search(args: SearchFlightsArgs): Promise<SearchFlightsResult> {
  return searchFlights.handler(args, ctx);
}

const flightNumbers = (result: SearchFlightsResult): string[] => result.domainData.data.flights.map((flight) => flight.flightNumber);

describe('search_flights', () => {
  it('returns the flights of the route and date, cheapest first, priced for every passenger', async () => {
    const result = await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 });
    expect(result.domainData.kind).toBe('flight-results');
    expect(result.domainData.data).toMatchObject({ route: { origin: 'LHR', destination: 'CDG' }, date: '2026-12-18', passengers: 2 });
    expect(flightNumbers(result)).toEqual(['NX 402', 'AU 1021', 'MW 304', 'MW 312']);
    expect(result.domainData.data.flights.map((flight) => [flight.pricePerPerson, flight.totalPrice, flight.currency])).toEqual([
      [72, 144, 'GBP'],
      [94, 188, 'GBP'],
      [118, 236, 'GBP'],
      [146, 292, 'GBP'],
    ]);
  });

  it('summarises one line per flight for the model', async () => {
    const result = await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 });
    expect(result.summary.split('\n')).toEqual([
      '4 flights from LHR to CDG on 2026-12-18 for 2 passengers, cheapest first:',
      'NX 402 (Northwind Express) | LHR 12:40 -> CDG 17:25 (local times) | 1 stop | GBP 72.00 per person, GBP 144.00 for 2 | 14 seats left',
      'AU 1021 (Aurora Air) | LHR 09:10 -> CDG 11:25 (local times) | nonstop | GBP 94.00 per person, GBP 188.00 for 2 | 3 seats left',
      'MW 304 (Meridian Airways) | LHR 07:25 -> CDG 09:40 (local times) | nonstop | GBP 118.00 per person, GBP 236.00 for 2 | 9 seats left',
      'MW 312 (Meridian Airways) | LHR 18:05 -> CDG 20:20 (local times) | nonstop | GBP 146.00 per person, GBP 292.00 for 2 | 2 seats left',
    ]);
  });

  it('defaults to one passenger', async () => {
    const result = await search({ origin: 'MAD', destination: 'LIS', date: '2026-12-18' });
    expect(result.domainData.data.passengers).toBe(1);
    expect(result.summary).toContain('SL 518 (Solea) | MAD 09:45 -> LIS 10:05 (local times) | nonstop | EUR 64.00 | 12 seats left');
  });

  it('leaves out flights without enough seats or with too many stops', async () => {
    expect(flightNumbers(await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 4 }))).toEqual(['NX 402', 'MW 304']);
    expect(flightNumbers(await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', maxStops: 0 }))).toEqual(['AU 1021', 'MW 304', 'MW 312']);
  });

  it('answers an empty list with the dates the route does fly', async () => {
    const result = await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-20' });
    expect(result.domainData.data.flights).toEqual([]);
    expect(result.summary).toBe('No flights from LHR to CDG on 2026-12-20. This route has flights on: 2026-12-18.');
  });

  it('explains which filter left nothing', async () => {
    const result = await search({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 9, maxStops: 0 });
    expect(flightNumbers(result)).toEqual(['MW 304']);
    const none = await search({ origin: 'BCN', destination: 'FRA', date: '2026-12-22', passengers: 3 });
    expect(none.domainData.data.flights).toEqual([]);
    expect(none.summary).toBe('1 flight from BCN to FRA on 2026-12-22, but none with at least 3 free seats.');
  });

  it('names airports and routes it does not serve', async () => {
    expect((await search({ origin: 'LHR', destination: 'ZRH', date: '2026-12-18' })).summary).toBe(
      'No flights: ZRH is not served. Airports with flights: AMS, BCN, CDG, FCO, FRA, LHR, LIS, MAD.',
    );
    expect((await search({ origin: 'FRA', destination: 'LIS', date: '2026-12-18' })).summary).toBe(
      'No flights from FRA to LIS on any date. From FRA there are flights to: AMS, BCN, MAD.',
    );
  });

  it('refuses the same airport at both ends', async () => {
    await expect(search({ origin: 'LHR', destination: 'LHR', date: '2026-12-18' })).rejects.toThrow('origin and destination are both LHR');
  });

  it('registers, and its schemas accept its output and reject bad arguments', async () => {
    const tool = testTool(searchFlights);
    const output = await search({ origin: 'AMS', destination: 'LIS', date: '2026-12-22', passengers: 2 });
    expect(tool.outputError(output)).toBeUndefined();
    expect(tool.argumentError({ origin: 'AMS', destination: 'LIS', date: '2026-12-22' })).toBeUndefined();
    for (const bad of [
      { origin: 'ams', destination: 'LIS', date: '2026-12-22' },
      { origin: 'AMS', destination: 'LIS', date: '22/12/2026' },
      { origin: 'AMS', destination: 'LIS', date: '2026-12-22', passengers: 10 },
      { origin: 'AMS', destination: 'LIS', date: '2026-12-22', maxStops: -1 },
      { origin: 'AMS', date: '2026-12-22' },
    ]) {
      expect(tool.argumentError(bad)).toBeDefined();
    }
  });
});
