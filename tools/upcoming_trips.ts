/**
 * upcoming_trips: the flights booked by the person the actor is talking to that have not departed
 * yet, soonest first, read from the booking ledger (`_bookings.ts`), with a ready-made `summary`
 * short enough for two SMS segments. Read-only.
 */
import { isGsm7, normaliseGsm, smsSegmentCount, type GeneralistToolDefinition } from 'switchboard';
import { bookingOwner, exampleLedger, type Booking, type BookingLedger } from './_bookings.ts';
import { formatLocalTime } from './format_itinerary.ts';

/** Most SMS segments a summary takes. */
export const SUMMARY_MAX_SEGMENTS = 2;

/** The summary when nothing is booked ahead. */
export const NO_TRIPS = 'No upcoming trips.';

/** First line of a summary that lists trips. */
const SUMMARY_TITLE = 'Upcoming trips (local times):';

/** Most characters of a traveller's name in a summary, `...` included. */
const NAME_CHARS = 24;

/** One upcoming flight. */
export interface UpcomingTrip {
  readonly bookingReference: string;
  /** `MW 304`. */
  readonly flightNumber: string;
  /** IATA code of the departure airport. */
  readonly origin: string;
  /** IATA code of the arrival airport. */
  readonly destination: string;
  /** ISO 8601 local departure time with offset, as booked. */
  readonly departure: string;
  /** The departure for people, `Fri 18 Dec 2026, 07:25` (local to the airport). */
  readonly departs: string;
  /** Full names, as booked. */
  readonly travellers: readonly string[];
}

/** What upcoming_trips returns. */
export interface UpcomingTripsResult {
  /** Every upcoming trip, soonest first. */
  readonly trips: readonly UpcomingTrip[];
  /** Plain GSM-friendly text of at most {@link SUMMARY_MAX_SEGMENTS} SMS segments. */
  readonly summary: string;
}

/** Options of {@link createUpcomingTripsTool}. */
export interface UpcomingTripsOptions {
  /** Where bookings are read from. */
  readonly ledger: BookingLedger;
  /** The time trips must depart after. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/**
 * `text` made GSM-7 friendly: typographic characters replaced (the kit's `normaliseGsm`), and a
 * letter outside GSM-7 whose accents are its only problem written without them (`ë` as `e`, while
 * `é`, `ø` and `ß` are GSM-7 and kept). Anything else (`ł`, Chinese, emoji) is kept, and makes the
 * text UCS-2: {@link tripSummary} counts it so.
 */
export function gsmFriendly(text: string): string {
  return Array.from(normaliseGsm(text), (char) => {
    if (isGsm7(char)) return char;
    const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
    return isGsm7(bare) ? bare : char;
  }).join('');
}

function shortName(name: string): string {
  const clean = gsmFriendly(name.trim().replace(/\s+/g, ' '));
  const chars = Array.from(clean);
  return chars.length <= NAME_CHARS ? clean : `${chars.slice(0, NAME_CHARS - 3).join('').trimEnd()}...`;
}

/** `Fri 18 Dec 07:25 MW 304 LHR->CDG, Ada Lovelace +1, ref SBK7M2QX`. */
function tripLine(trip: UpcomingTrip): string {
  const when = trip.departs.replace(/ \d{4},/, '');
  const [first] = trip.travellers;
  const others = trip.travellers.length - 1;
  const who = first === undefined ? '' : `, ${shortName(first)}${others > 0 ? ` +${others}` : ''}`;
  return `${when} ${trip.flightNumber} ${trip.origin}->${trip.destination}${who}, ref ${trip.bookingReference}`;
}

/**
 * The SMS summary of `trips` (soonest first): {@link NO_TRIPS} for none; else a title and one line
 * per trip (day, local time, flight, route, first traveller and how many others, reference), as
 * many of the soonest as fit in `maxSegments` SMS segments, then `+N more` for the rest.
 *
 * @param maxSegments - Default {@link SUMMARY_MAX_SEGMENTS} (2).
 */
export function tripSummary(trips: readonly UpcomingTrip[], maxSegments = SUMMARY_MAX_SEGMENTS): string {
  if (trips.length === 0) return NO_TRIPS;
  const lines = trips.map(tripLine);
  const text = (shown: number): string => {
    const more = trips.length - shown;
    return [SUMMARY_TITLE, ...lines.slice(0, shown), ...(more > 0 ? [`+${more} more`] : [])].join('\n');
  };
  let shown = trips.length;
  while (shown > 0 && smsSegmentCount(text(shown)) > maxSegments) shown -= 1;
  return text(shown);
}

/** A booking as an {@link UpcomingTrip}. */
export function upcomingTrip(booking: Booking): UpcomingTrip {
  return {
    bookingReference: booking.bookingReference,
    flightNumber: booking.flight.flightNumber,
    origin: booking.flight.origin,
    destination: booking.flight.destination,
    departure: booking.flight.departure,
    departs: formatLocalTime(booking.flight.departure),
    travellers: booking.passengers.map((passenger) => passenger.fullName),
  };
}

/**
 * The upcoming_trips tool reading `options.ledger`. The module's default export reads the example
 * app's ledger.
 *
 * @example
 * export default createUpcomingTripsTool({ ledger: appBookingLedger(new URL('..', import.meta.url)) });
 */
export function createUpcomingTripsTool(options: UpcomingTripsOptions): GeneralistToolDefinition<Record<string, never>, UpcomingTripsResult> {
  const clock = options.clock ?? (() => new Date());
  return {
    name: 'upcoming_trips',
    description:
      'List the flights booked for the person you are talking to that have not departed yet, soonest first ' +
      '(for a sender who is not a known person: those booked in this conversation). Also returns summary, a short ' +
      'plain text of them that fits in two SMS segments, to send as it is.',
    scope: 'generalist',
    tags: ['read', 'travel'],
    inputSchema: { type: 'object', additionalProperties: false, properties: {} },
    outputSchema: {
      type: 'object',
      required: ['trips', 'summary'],
      properties: { trips: { type: 'array' }, summary: { type: 'string', minLength: 1 } },
    },
    handler: async (_args, ctx) => {
      const trips = (await options.ledger.upcoming(bookingOwner(ctx), clock())).map(upcomingTrip);
      return { trips, summary: tripSummary(trips) };
    },
  };
}

const upcomingTrips = createUpcomingTripsTool({ ledger: exampleLedger });

export default upcomingTrips;
