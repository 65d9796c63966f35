/**
 * format_itinerary: a terminal tool. Lays confirmed bookings out as a fixed plain-text itinerary,
 * delivered to the person word for word; the turn ends with it.
 */
import type { GeneralistToolDefinition } from 'switchboard';
import { AIRPORTS } from './_flights.ts';

/** One flight of the itinerary, as book_flight confirmed it. */
export interface ItineraryBooking {
  readonly bookingReference: string;
  readonly flightNumber: string;
  readonly origin: string;
  readonly destination: string;
  /** ISO 8601 local time, `2026-12-18T07:25:00+00:00`. */
  readonly departure: string;
  /** ISO 8601 local time. */
  readonly arrival: string;
}

/** Arguments of format_itinerary, after schema validation. */
export interface FormatItineraryArgs {
  readonly travellerName?: string;
  /** In travel order. */
  readonly bookings: readonly ItineraryBooking[];
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Fri 18 Dec 2026`: the date of an ISO local time (or a `YYYY-MM-DD` date), read from its text. */
export function formatLocalDate(iso: string): string {
  const year = Number(iso.slice(0, 4));
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] ?? '';
  return `${weekday} ${day} ${MONTHS[month - 1] ?? ''} ${year}`;
}

/** `Fri 18 Dec 2026, 07:25`, read from the text of an ISO local time (no time zone conversion). */
export function formatLocalTime(iso: string): string {
  return `${formatLocalDate(iso)}, ${iso.slice(11, 16)}`;
}

function airport(code: string): string {
  const name = AIRPORTS[code];
  return name === undefined ? code : `${name} (${code})`;
}

/** One flight of {@link ItineraryData}: the booking as given, with the names of its airports when known. */
export interface ItineraryFlight extends ItineraryBooking {
  /** `London Heathrow`; absent for an airport outside the dataset. */
  readonly originName?: string;
  readonly destinationName?: string;
}

/** The itinerary as domain data of kind `itinerary`, for the app's `surfaces/itinerary.ts`. */
export interface ItineraryData {
  readonly travellerName?: string;
  /** In travel order. */
  readonly flights: readonly ItineraryFlight[];
}

/** The itinerary of `args` as data: the flights in the given order, airport names added. */
export function itineraryData(args: FormatItineraryArgs): ItineraryData {
  const name = args.travellerName?.trim() ?? '';
  const flights = args.bookings.map((booking): ItineraryFlight => {
    const originName = AIRPORTS[booking.origin];
    const destinationName = AIRPORTS[booking.destination];
    return { ...booking, ...(originName === undefined ? {} : { originName }), ...(destinationName === undefined ? {} : { destinationName }) };
  });
  return { ...(name === '' ? {} : { travellerName: name }), flights };
}

/** The itinerary text: a title, one block per flight in the given order, a note on times. */
export function formatItinerary(args: FormatItineraryArgs): string {
  const name = args.travellerName?.trim() ?? '';
  const title = name === '' ? 'Itinerary' : `Itinerary for ${name}`;
  const total = args.bookings.length;
  const blocks = args.bookings.map((booking, index) =>
    [
      `Flight ${index + 1} of ${total}: ${booking.flightNumber}`,
      `  ${airport(booking.origin)} -> ${airport(booking.destination)}`,
      `  Departs: ${formatLocalTime(booking.departure)}`,
      `  Arrives: ${formatLocalTime(booking.arrival)}`,
      `  Booking reference: ${booking.bookingReference}`,
    ].join('\n'),
  );
  return [title, ...blocks, 'All times are local to each airport.'].join('\n\n');
}

const ISO_LOCAL_TIME = { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d' };
const IATA = { type: 'string', pattern: '^[A-Z]{3}$' };

/** What the tool returns: the text that answers the person, and the itinerary as domain data. */
export interface FormattedItinerary {
  readonly text: string;
  readonly domainData: { readonly kind: 'itinerary'; readonly data: ItineraryData };
}

const formatItineraryTool: GeneralistToolDefinition<FormatItineraryArgs, FormattedItinerary> = {
  name: 'format_itinerary',
  description:
    'Send the person their itinerary: confirmed bookings laid out one block per flight. Its text goes to the ' +
    'person exactly as produced and ends your turn. Only use booking references and times that book_flight returned, in travel order.',
  scope: 'generalist',
  terminal: true,
  tags: ['read', 'travel'],
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['bookings'],
    properties: {
      travellerName: { type: 'string', maxLength: 100, description: 'Whose itinerary it is, for the title.' },
      bookings: {
        type: 'array',
        minItems: 1,
        maxItems: 20,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['bookingReference', 'flightNumber', 'origin', 'destination', 'departure', 'arrival'],
          properties: {
            bookingReference: { type: 'string', minLength: 1 },
            flightNumber: { type: 'string', minLength: 1 },
            origin: IATA,
            destination: IATA,
            departure: { ...ISO_LOCAL_TIME, description: 'Local departure time as book_flight returned it.' },
            arrival: { ...ISO_LOCAL_TIME, description: 'Local arrival time as book_flight returned it.' },
          },
        },
      },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['text', 'domainData'],
    properties: {
      text: { type: 'string', minLength: 1 },
      domainData: { type: 'object', required: ['kind', 'data'], properties: { kind: { const: 'itinerary' }, data: { type: 'object' } } },
    },
  },
  // A terminal tool's `text` is the answer; the data goes into the envelope (surfaces/itinerary.ts).
  handler: (args) => ({ text: formatItinerary(args), domainData: { kind: 'itinerary', data: itineraryData(args) } }),
};

export default formatItineraryTool;
