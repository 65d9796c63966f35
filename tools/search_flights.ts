/**
 * search_flights: finds flights of the sample dataset for a route and date, cheapest first.
 */
import type { GeneralistToolDefinition } from 'switchboard';
import { AIRPORTS, allFlights, departureDate, localTime, money, type Flight } from './_flights.ts';

/** Arguments of search_flights, after schema validation. */
export interface SearchFlightsArgs {
  readonly origin: string;
  readonly destination: string;
  readonly date: string;
  /** 1 to 9. Default 1. */
  readonly passengers?: number;
  /** Most stops allowed. Default: any. */
  readonly maxStops?: number;
}

/** One flight in a search result: the dataset's fields plus the total for all passengers. */
export interface FlightOffer extends Flight {
  readonly totalPrice: number;
}

/** What search_flights returns. */
export interface SearchFlightsResult {
  readonly domainData: {
    readonly kind: 'flight-results';
    readonly data: {
      readonly route: { readonly origin: string; readonly destination: string };
      readonly date: string;
      readonly passengers: number;
      readonly flights: readonly FlightOffer[];
    };
  };
  /** One line per flight, for the model. */
  readonly summary: string;
}

const IATA = { type: 'string', pattern: '^[A-Z]{3}$' };

const FLIGHT_OFFER_SCHEMA = {
  type: 'object',
  required: ['flightNumber', 'airline', 'origin', 'destination', 'departure', 'arrival', 'pricePerPerson', 'totalPrice', 'currency', 'stops', 'seatsLeft'],
  properties: {
    flightNumber: { type: 'string' },
    airline: { type: 'string' },
    origin: IATA,
    destination: IATA,
    departure: { type: 'string' },
    arrival: { type: 'string' },
    pricePerPerson: { type: 'number' },
    totalPrice: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'GBP'] },
    stops: { type: 'integer', minimum: 0 },
    seatsLeft: { type: 'integer', minimum: 0 },
  },
};

function timesOf(flight: Flight): string {
  const arrivalDate = flight.arrival.slice(0, 10);
  const arrives = arrivalDate === departureDate(flight) ? localTime(flight.arrival) : `${arrivalDate} ${localTime(flight.arrival)}`;
  return `${flight.origin} ${localTime(flight.departure)} -> ${flight.destination} ${arrives}`;
}

function offerLine(offer: FlightOffer, passengers: number): string {
  const stops = offer.stops === 0 ? 'nonstop' : `${offer.stops} stop${offer.stops === 1 ? '' : 's'}`;
  const price =
    passengers === 1
      ? money(offer.pricePerPerson, offer.currency)
      : `${money(offer.pricePerPerson, offer.currency)} per person, ${money(offer.totalPrice, offer.currency)} for ${passengers}`;
  return `${offer.flightNumber} (${offer.airline}) | ${timesOf(offer)} (local times) | ${stops} | ${price} | ${offer.seatsLeft} seats left`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function noMatchSummary(all: readonly Flight[], args: SearchFlightsArgs, passengers: number): string {
  const { origin, destination, date } = args;
  const unknown = [origin, destination].filter((code) => AIRPORTS[code] === undefined);
  if (unknown.length > 0) {
    return `No flights: ${unknown.join(' and ')} ${unknown.length === 1 ? 'is' : 'are'} not served. Airports with flights: ${Object.keys(AIRPORTS).join(', ')}.`;
  }
  const route = all.filter((flight) => flight.origin === origin && flight.destination === destination);
  if (route.length === 0) {
    const from = [...new Set(all.filter((flight) => flight.origin === origin).map((flight) => flight.destination))].sort();
    return `No flights from ${origin} to ${destination} on any date. From ${origin} there are flights to: ${from.join(', ') || 'nowhere'}.`;
  }
  const sameDay = route.filter((flight) => departureDate(flight) === date);
  if (sameDay.length === 0) {
    const dates = [...new Set(route.map(departureDate))].sort();
    return `No flights from ${origin} to ${destination} on ${date}. This route has flights on: ${dates.join(', ')}.`;
  }
  const limits = [`at least ${plural(passengers, 'free seat')}`];
  if (args.maxStops !== undefined) limits.push(`at most ${plural(args.maxStops, 'stop')}`);
  return `${plural(sameDay.length, 'flight')} from ${origin} to ${destination} on ${date}, but none with ${limits.join(' and ')}.`;
}

const searchFlights: GeneralistToolDefinition<SearchFlightsArgs, SearchFlightsResult> = {
  name: 'search_flights',
  description:
    'Search scheduled flights between two airports on one date. Returns the matching flights cheapest first, ' +
    'with price per person, total for all passengers, stops and seats left. Fares are in the currency of the departure country.',
  scope: 'generalist',
  tags: ['read', 'travel'],
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['origin', 'destination', 'date'],
    properties: {
      origin: { ...IATA, description: 'IATA code of the departure airport, e.g. LHR.' },
      destination: { ...IATA, description: 'IATA code of the arrival airport, e.g. CDG.' },
      date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Local departure date, YYYY-MM-DD.' },
      passengers: { type: 'integer', minimum: 1, maximum: 9, description: 'Number of travellers, 1 to 9. Default 1.' },
      maxStops: { type: 'integer', minimum: 0, description: 'Most stops allowed; 0 for nonstop only. Default: any.' },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['domainData', 'summary'],
    properties: {
      domainData: {
        type: 'object',
        required: ['kind', 'data'],
        properties: {
          kind: { const: 'flight-results' },
          data: {
            type: 'object',
            required: ['route', 'date', 'passengers', 'flights'],
            properties: {
              route: {
                type: 'object',
                required: ['origin', 'destination'],
                properties: { origin: IATA, destination: IATA },
              },
              date: { type: 'string' },
              passengers: { type: 'integer', minimum: 1 },
              flights: { type: 'array', items: FLIGHT_OFFER_SCHEMA },
            },
          },
        },
      },
      summary: { type: 'string' },
    },
  },
  handler: async (args) => {
    if (args.origin === args.destination) {
      throw new Error(`origin and destination are both ${args.origin}; ask the person where they are flying to.`);
    }
    const passengers = args.passengers ?? 1;
    const all = await allFlights();
    const flights: FlightOffer[] = all
      .filter(
        (flight) =>
          flight.origin === args.origin &&
          flight.destination === args.destination &&
          departureDate(flight) === args.date &&
          flight.seatsLeft >= passengers &&
          (args.maxStops === undefined || flight.stops <= args.maxStops),
      )
      .map((flight) => ({ ...flight, totalPrice: Math.round(flight.pricePerPerson * passengers * 100) / 100 }))
      .sort((a, b) => a.pricePerPerson - b.pricePerPerson || a.departure.localeCompare(b.departure));
    const summary =
      flights.length === 0
        ? noMatchSummary(all, args, passengers)
        : [
            `${plural(flights.length, 'flight')} from ${args.origin} to ${args.destination} on ${args.date} for ${plural(passengers, 'passenger')}${flights.length > 1 ? ', cheapest first' : ''}:`,
            ...flights.map((offer) => offerLine(offer, passengers)),
          ].join('\n');
    return {
      domainData: {
        kind: 'flight-results',
        data: { route: { origin: args.origin, destination: args.destination }, date: args.date, passengers, flights },
      },
      summary,
    };
  },
};

export default searchFlights;
