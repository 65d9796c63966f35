/**
 * The example app's real domain data (a search, a booking, an itinerary, as its tools return them
 * on the bundled flights) on every buffered channel, through the kit's renderers: readable on SMS,
 * WhatsApp, Slack and email, with no JSON, and the itinerary (whose text is the answer) not twice.
 */
import { describe, expect, it } from 'vitest';
import { collectDomainData } from '../../src/protocol/envelope/collect-domain-data.ts';
import type { Part } from '../../src/protocol/parts/part.ts';
import { renderForChannel } from '../../channels/kit/render/render-for-channel.ts';
import { smsSegments } from '../../channels/kit/render/sms-segments.ts';
import { slackProblems } from '../../channels/kit/render/fixtures/checks.ts';
import { toolContext } from 'switchboard/testing';
import searchFlights from '../../tools/search_flights.ts';
import formatItineraryTool from '../../tools/format_itinerary.ts';

const context = toolContext({ actorName: 'concierge' });
const search = await searchFlights.handler({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2, maxStops: 0 }, context);
const flight = search.domainData.data.flights[1];
if (flight === undefined) throw new Error('the bundled data has no second LHR-CDG flight on 18 December');
const booking = {
  bookingReference: 'SBK7M2QX',
  status: 'confirmed',
  flight: { flightNumber: flight.flightNumber, airline: flight.airline, origin: 'LHR', destination: 'CDG', departure: flight.departure, arrival: flight.arrival },
  passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Charles Babbage' }],
  totalCost: flight.totalPrice,
  currency: flight.currency,
};
const itinerary = await formatItineraryTool.handler(
  { bookings: [{ bookingReference: booking.bookingReference, flightNumber: flight.flightNumber, origin: 'LHR', destination: 'CDG', departure: flight.departure, arrival: flight.arrival }] },
  context,
);

function partsWith(kind: string, data: Readonly<Record<string, unknown>>, answer: string): Part[] {
  return [{ text: answer, metadata: { partType: 'response' } }, collectDomainData({ events: [{ kind, data: { ...data } }] }) as Part];
}

const cases = [
  { kind: 'flight-results', data: search.domainData.data, answer: 'Three nonstop flights.', shows: [flight.flightNumber, 'AU 1021', 'MW 312'] },
  { kind: 'booking', data: booking, answer: 'Booked.', shows: ['SBK7M2QX', flight.flightNumber, 'Charles Babbage'] },
] as const;

describe("the example app's data on buffered channels", () => {
  for (const { kind, data, answer, shows } of cases) {
    it(`reads well everywhere: ${kind}`, () => {
      const parts = partsWith(kind, data, answer);
      const sms = renderForChannel({ format: 'plain', gsm: true, maxSegments: 10 }, parts).chunks.join('\n');
      const whatsapp = renderForChannel({ format: 'whatsapp' }, parts).chunks.join('\n');
      const slack = renderForChannel({ format: 'slack' }, parts).chunks.join('\n');
      const email = renderForChannel({ format: 'email' }, parts);
      for (const [channel, text] of [['sms', sms], ['whatsapp', whatsapp], ['slack', slack], ['email text', email.text], ['email html', email.html]] as const) {
        for (const shown of shows) expect(text, `${channel}: ${shown}`).toContain(shown);
        expect(text, `${channel}: no JSON`).not.toMatch(/[{}]|"\w+":/);
      }
      expect(smsSegments(sms).encoding).toBe('GSM-7');
      expect(slackProblems(slack)).toEqual([]);
    });
  }

  it('adds nothing for the itinerary, whose text is the answer', () => {
    const parts = partsWith('itinerary', { ...itinerary.domainData.data }, itinerary.text);
    const sms = renderForChannel({ format: 'plain', gsm: true, maxSegments: 10 }, parts).chunks.join('\n');
    expect(sms.split(flight.flightNumber).length - 1).toBe(1);
    expect(sms).toContain('Booking reference: SBK7M2QX');
  });
});
