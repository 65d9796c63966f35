import { describe, expect, it } from 'vitest';
import { testTool, toolContext } from 'switchboard/testing';
import formatItineraryTool, { formatItinerary, itineraryData, type ItineraryBooking } from './format_itinerary.ts';

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
  destination: 'LHR',
  departure: '2027-01-04T13:55:00+01:00',
  arrival: '2027-01-04T14:10:00+00:00',
};

describe('format_itinerary', () => {
  it('lays out one block per flight, exactly', () => {
    expect(formatItinerary({ travellerName: 'Ada Lovelace', bookings: [OUTBOUND, RETURN] })).toBe(
      [
        'Itinerary for Ada Lovelace',
        '',
        'Flight 1 of 2: MW 304',
        '  London Heathrow (LHR) -> Paris Charles de Gaulle (CDG)',
        '  Departs: Fri 18 Dec 2026, 07:25',
        '  Arrives: Fri 18 Dec 2026, 09:40',
        '  Booking reference: SBF4MAN8',
        '',
        'Flight 2 of 2: AU 1022',
        '  Paris Charles de Gaulle (CDG) -> London Heathrow (LHR)',
        '  Departs: Mon 4 Jan 2027, 13:55',
        '  Arrives: Mon 4 Jan 2027, 14:10',
        '  Booking reference: SBQ2W7KD',
        '',
        'All times are local to each airport.',
      ].join('\n'),
    );
  });

  it('works without a name, across midnight and for airports outside the dataset', () => {
    const late: ItineraryBooking = { ...OUTBOUND, destination: 'KEF', departure: '2026-12-31T22:50', arrival: '2027-01-01T01:15' };
    expect(formatItinerary({ travellerName: '  ', bookings: [late] })).toBe(
      [
        'Itinerary',
        '',
        'Flight 1 of 1: MW 304',
        '  London Heathrow (LHR) -> KEF',
        '  Departs: Thu 31 Dec 2026, 22:50',
        '  Arrives: Fri 1 Jan 2027, 01:15',
        '  Booking reference: SBF4MAN8',
        '',
        'All times are local to each airport.',
      ].join('\n'),
    );
  });

  it('is a terminal tool whose text is the itinerary, with the itinerary as domain data', async () => {
    const tested = testTool(formatItineraryTool);
    expect(tested.tool.terminal).toBe(true);
    const output = await tested.call({ bookings: [OUTBOUND] }, { actorName: 'concierge' });
    expect(output).toEqual({ text: formatItinerary({ bookings: [OUTBOUND] }), domainData: { kind: 'itinerary', data: itineraryData({ bookings: [OUTBOUND] }) } });
    expect(await formatItineraryTool.handler({ bookings: [OUTBOUND] }, toolContext())).toEqual(output);
    expect(tested.argumentError({ bookings: [] })).toBeDefined();
    expect(tested.argumentError({ bookings: [{ ...OUTBOUND, departure: 'tomorrow' }] })).toBeDefined();
  });
});

describe('itineraryData', () => {
  it('is the itinerary as data: the flights in the given order, with the names of the airports it knows', () => {
    const late: ItineraryBooking = { ...RETURN, destination: 'KEF' };
    expect(itineraryData({ travellerName: ' Ada Lovelace ', bookings: [OUTBOUND, late] })).toEqual({
      travellerName: 'Ada Lovelace',
      flights: [
        { ...OUTBOUND, originName: 'London Heathrow', destinationName: 'Paris Charles de Gaulle' },
        { ...late, originName: 'Paris Charles de Gaulle' },
      ],
    });
    expect(itineraryData({ travellerName: '  ', bookings: [OUTBOUND] })).not.toHaveProperty('travellerName');
  });
});
