/**
 * book_flight: books seats on one flight of the sample dataset. Side-effecting, so it goes through
 * approval unless the total is small. Idempotent: the same call in the same turn returns the same
 * booking. Each confirmed booking is also written once to the app's booking ledger
 * (`_bookings.ts`), under the person who asked (or the session), for upcoming_trips.
 */
import { createHash } from 'node:crypto';
import type { GeneralistToolDefinition, ToolHandlerContext } from 'switchboard';
import { bookingOwner, exampleLedger, type Booking, type BookingLedger } from './_bookings.ts';
import { findFlight, flightKey, money, type Currency } from './_flights.ts';

export type { Booking } from './_bookings.ts';

/** Arguments of book_flight, after schema validation. */
export interface BookFlightArgs {
  readonly flightNumber: string;
  /** Local departure date, `YYYY-MM-DD`. */
  readonly date: string;
  /** 1 to 9 travellers. */
  readonly passengers: readonly { readonly fullName: string }[];
  /** What the person agreed to pay for all passengers. */
  readonly totalCost: number;
  readonly currency: Currency;
}

/** What book_flight returns: the booking, and the same as domain data of kind `booking`. */
export interface BookFlightResult extends Booking {
  readonly domainData: { readonly kind: 'booking'; readonly data: Booking };
}

/** Letters and digits of a reference; no 0/O or 1/I to misread. 32 symbols, so a byte maps evenly. */
const REFERENCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function normaliseName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/**
 * `SB` + 6 characters hashed from the session, the turn, the flight, the date and the passengers, so
 * a retried call (after a crash or an approval) gets the same reference and so the same booking.
 */
export function bookingReference(ctx: Pick<ToolHandlerContext, 'sessionId' | 'turnId'>, args: BookFlightArgs): string {
  const names = args.passengers.map((passenger) => normaliseName(passenger.fullName).toLowerCase());
  const digest = createHash('sha256')
    .update(JSON.stringify([ctx.sessionId, ctx.turnId, flightKey(args.flightNumber), args.date, names]))
    .digest();
  let code = '';
  for (const byte of digest.subarray(0, 6)) code += REFERENCE_ALPHABET[byte % REFERENCE_ALPHABET.length] ?? '';
  return `SB${code}`;
}

const cents = (amount: number): number => Math.round(amount * 100);

/**
 * The book_flight tool, recording its bookings in `ledger`. The module's default export uses the
 * example app's ledger; another app (or a test) passes its own.
 *
 * @example
 * export default createBookFlightTool(appBookingLedger(new URL('..', import.meta.url)));
 */
export function createBookFlightTool(ledger: BookingLedger): GeneralistToolDefinition<BookFlightArgs, BookFlightResult> {
  /** Bookings made by this tool in this process, by reference. */
  const bookings = new Map<string, Booking>();
  return {
    name: 'book_flight',
    description:
      'Book seats on one flight found with search_flights, for the named passengers. totalCost must equal the ' +
      'price per person times the number of passengers, in the fare currency. Needs approval unless the total is under 50.',
    scope: 'generalist',
    tags: ['write', 'travel', 'payment'],
    requiresApproval: { autoApproveIf: 'args.totalCost < 50' },
    // Passenger names are masked (•••) in the event log and in captured model calls.
    personalData: ['passengers/*/fullName'],
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['flightNumber', 'date', 'passengers', 'totalCost', 'currency'],
      properties: {
        flightNumber: { type: 'string', pattern: '^[A-Za-z0-9]{2} ?-?[0-9]{1,4}$', description: 'As search_flights gave it, e.g. "MW 304".' },
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Local departure date, YYYY-MM-DD.' },
        passengers: {
          type: 'array',
          minItems: 1,
          maxItems: 9,
          description: 'Every traveller, with their full name as on their passport.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['fullName'],
            properties: { fullName: { type: 'string', pattern: '\\S', maxLength: 100 } },
          },
        },
        totalCost: { type: 'number', exclusiveMinimum: 0, description: 'Total for all passengers, as quoted to the person.' },
        currency: { type: 'string', enum: ['EUR', 'GBP'], description: 'The fare currency from search_flights.' },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['bookingReference', 'status', 'flight', 'passengers', 'totalCost', 'currency', 'domainData'],
      properties: {
        bookingReference: { type: 'string', pattern: '^SB[A-Z0-9]{6}$' },
        status: { const: 'confirmed' },
        flight: { type: 'object' },
        passengers: { type: 'array', minItems: 1 },
        totalCost: { type: 'number' },
        currency: { type: 'string', enum: ['EUR', 'GBP'] },
        domainData: {
          type: 'object',
          required: ['kind', 'data'],
          properties: { kind: { const: 'booking' }, data: { type: 'object' } },
        },
      },
    },
    handler: async (args, ctx) => {
      const reference = bookingReference(ctx, args);
      const existing = bookings.get(reference);
      if (existing !== undefined) return { ...existing, domainData: { kind: 'booking', data: existing } };

      const flight = await findFlight(args.flightNumber, args.date);
      if (flight === undefined) {
        throw new Error(
          `There is no flight ${args.flightNumber} departing on ${args.date}. Nothing was booked. ` +
            'Search with search_flights and book a flight number and date from its results.',
        );
      }
      const count = args.passengers.length;
      if (args.currency !== flight.currency) {
        throw new Error(`${flight.flightNumber} is priced in ${flight.currency}, not ${args.currency}. Nothing was booked.`);
      }
      if (flight.seatsLeft < count) {
        throw new Error(`${flight.flightNumber} on ${args.date} has only ${flight.seatsLeft} seats left, not ${count}. Nothing was booked.`);
      }
      const expected = cents(flight.pricePerPerson) * count;
      if (cents(args.totalCost) !== expected) {
        const total = money(expected / 100, flight.currency);
        throw new Error(
          `totalCost ${money(args.totalCost, args.currency)} does not match the fare: ${count} x ` +
            `${money(flight.pricePerPerson, flight.currency)} = ${total}. Nothing was booked. ` +
            `Tell the person the total is ${total} and, once they agree, call book_flight again with totalCost ${expected / 100}.`,
        );
      }
      const booking: Booking = {
        bookingReference: reference,
        status: 'confirmed',
        flight: {
          flightNumber: flight.flightNumber,
          airline: flight.airline,
          origin: flight.origin,
          destination: flight.destination,
          departure: flight.departure,
          arrival: flight.arrival,
        },
        passengers: args.passengers.map((passenger) => ({ fullName: normaliseName(passenger.fullName) })),
        totalCost: expected / 100,
        currency: flight.currency,
      };
      try {
        await ledger.record(bookingOwner(ctx), booking);
      } catch (error) {
        throw new Error(`The booking could not be saved (${error instanceof Error ? error.message : String(error)}). Nothing was booked.`, { cause: error });
      }
      bookings.set(reference, booking);
      return { ...booking, domainData: { kind: 'booking', data: booking } };
    },
  };
}

const bookFlight = createBookFlightTool(exampleLedger);

export default bookFlight;
