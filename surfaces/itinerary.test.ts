import { describe, expect, it } from 'vitest';
import { checkSurfaceMessage } from 'switchboard';
import { itineraryData, type ItineraryBooking } from '../tools/format_itinerary.ts';
import itinerary from './itinerary.ts';
import { render, templateContext } from './_rendered.ts';

const OUTBOUND: ItineraryBooking = {
  bookingReference: 'SBF4MAN8',
  flightNumber: 'MW 304',
  origin: 'LHR',
  destination: 'CDG',
  departure: '2026-12-18T07:25:00+00:00',
  arrival: '2026-12-18T09:40:00+01:00',
};

const RETURN: ItineraryBooking = {
  bookingReference: 'SBQ2W7KD',
  flightNumber: 'AU 1022',
  origin: 'CDG',
  destination: 'KEF',
  departure: '2027-01-04T22:55:00+01:00',
  arrival: '2027-01-05T00:40:00+00:00',
};

describe('the itinerary surface', () => {
  it("shows format_itinerary's data: a title, one Card per flight in travel order, and a note on times", () => {
    const message = itinerary(itineraryData({ travellerName: ' Ada Lovelace ', bookings: [OUTBOUND, RETURN] }), templateContext('itinerary'));
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(render(message).texts).toEqual([
      'Itinerary for Ada Lovelace (2 flights)',
      'Flight 1 of 2: MW 304',
      'London Heathrow (LHR) → Paris Charles de Gaulle (CDG)',
      'Departs Fri 18 Dec 2026, 07:25',
      'Arrives Fri 18 Dec 2026, 09:40',
      'Booking reference SBF4MAN8',
      'Flight 2 of 2: AU 1022',
      'Paris Charles de Gaulle (CDG) → KEF',
      'Departs Mon 4 Jan 2027, 22:55',
      'Arrives Tue 5 Jan 2027, 00:40',
      'Booking reference SBQ2W7KD',
      'All times are local to each airport.',
    ]);
  });

  it('titles an itinerary without a name', () => {
    const { texts } = render(itinerary(itineraryData({ bookings: [OUTBOUND] }), templateContext('itinerary')));
    expect(texts[0]).toBe('Itinerary (1 flight)');
  });

  it('throws on data that is not an itinerary, so the envelope goes without it', () => {
    expect(() => itinerary({ flights: [{ flightNumber: 'MW 304' }] }, templateContext('itinerary'))).toThrow('"departure" should be a non-empty string');
  });
});
