/**
 * The example app's booking ledger: confirmed bookings that outlive a conversation, so that
 * upcoming_trips (and a schedule) can find them later. Kept per owner (a known person, else the
 * session) in a JSON-lines file, by default `<app folder>/.data/bookings.jsonl`. The leading `_`
 * keeps the app loader from treating this file as a tool module.
 *
 * Concurrency: every write is one `fs.appendFile` of one short line (the file is opened with
 * O_APPEND), which lands whole on a local disk even when several processes of one machine append
 * at once; a reader may meet a line still being written, and skips it. That is safe enough for an
 * example app, not for a real one (use a database): it does not hold on network file systems, and
 * processes on different machines or containers without a shared volume each keep their own file.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolHandlerContext } from 'switchboard';
import type { Currency, Flight } from './_flights.ts';

/** A confirmed booking, as book_flight returns it. */
export interface Booking {
  /** `SB` and six letters or digits. */
  readonly bookingReference: string;
  readonly status: 'confirmed';
  /** The flight's schedule, as the dataset gives it (local times with their offsets). */
  readonly flight: Pick<Flight, 'flightNumber' | 'airline' | 'origin' | 'destination' | 'departure' | 'arrival'>;
  readonly passengers: readonly { readonly fullName: string }[];
  readonly totalCost: number;
  readonly currency: Currency;
}

/** One line of the ledger file. */
interface LedgerLine {
  /** Whose booking it is: see {@link bookingOwner}. */
  readonly owner: string;
  /** ISO 8601 time the line was written. */
  readonly recordedAt: string;
  readonly booking: Booking;
}

/** The bookings of one file; see {@link createBookingLedger}. */
export interface BookingLedger {
  /** Absolute path of the JSON-lines file. */
  readonly file: string;
  /**
   * Appends `booking` for `owner`, creating the file and its folder when missing, unless a booking
   * with the same reference is already there.
   *
   * @returns `true` when a line was written, `false` when the reference was already recorded.
   */
  record(owner: string, booking: Booking): Promise<boolean>;
  /**
   * The bookings of `owner` whose departure is after `now`, soonest first; each reference once
   * (the first line written wins). A missing file means none.
   */
  upcoming(owner: string, now: Date): Promise<Booking[]>;
}

/** Where the ledger file is, relative to the app folder. */
export const LEDGER_PATH = '.data/bookings.jsonl';

/**
 * Whose a booking made in this call is: `person:<id>` for a known person (whatever channel they
 * use), else `session:<id>` (one conversation of an unknown sender).
 */
export function bookingOwner(ctx: Pick<ToolHandlerContext, 'personId' | 'sessionId'>): string {
  return ctx.personId === undefined ? `session:${ctx.sessionId}` : `person:${ctx.personId}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A parsed line, or `undefined` for a blank, torn or foreign one. */
function parseLine(text: string): LedgerLine | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value['owner'] !== 'string' || !isRecord(value['booking'])) return undefined;
  const booking = value['booking'];
  const flight = booking['flight'];
  if (typeof booking['bookingReference'] !== 'string' || !isRecord(flight) || typeof flight['departure'] !== 'string') return undefined;
  return value as unknown as LedgerLine;
}

/** The file's text; `''` when it does not exist yet. */
async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return '';
    throw error;
  }
}

const linesOf = (text: string): LedgerLine[] => text.split('\n').flatMap((line) => parseLine(line) ?? []);

/** Departure as epoch milliseconds; `NaN` for a time that does not parse. */
const departureMs = (booking: Booking): number => Date.parse(booking.flight.departure);

/**
 * A ledger kept in `file` (created on the first booking).
 *
 * @example
 * const ledger = createBookingLedger('/tmp/app/.data/bookings.jsonl');
 * await ledger.record('person:ada', booking);
 * await ledger.upcoming('person:ada', new Date()); // [booking] while it has not departed
 */
export function createBookingLedger(file: string): BookingLedger {
  return {
    file,
    async record(owner, booking) {
      const text = await readText(file);
      // Two processes recording one reference at the same instant may both append; upcoming()
      // keeps the first line of a reference, so the booking still shows once.
      if (linesOf(text).some((line) => line.booking.bookingReference === booking.bookingReference)) return false;
      await mkdir(dirname(file), { recursive: true });
      const line: LedgerLine = { owner, recordedAt: new Date().toISOString(), booking };
      // After a line left unfinished (a writer that died mid-write), start a new one rather than
      // gluing this line to it; at worst this leaves a blank line, which readers skip.
      const start = text === '' || text.endsWith('\n') ? '' : '\n';
      await appendFile(file, `${start}${JSON.stringify(line)}\n`, 'utf8');
      return true;
    },
    async upcoming(owner, now) {
      const seen = new Set<string>();
      const found: Booking[] = [];
      for (const line of linesOf(await readText(file))) {
        const reference = line.booking.bookingReference;
        if (seen.has(reference)) continue;
        seen.add(reference);
        if (line.owner === owner && departureMs(line.booking) > now.getTime()) found.push(line.booking);
      }
      return found.sort((a, b) => departureMs(a) - departureMs(b));
    },
  };
}

/** The ledger of the app in `appDir` (a path or a `file:` URL): `<appDir>/.data/bookings.jsonl`. */
export function appBookingLedger(appDir: string | URL): BookingLedger {
  return createBookingLedger(join(typeof appDir === 'string' ? appDir : fileURLToPath(appDir), LEDGER_PATH));
}

/** The ledger of the app whose `tools/` folder holds this module (the example app). */
export const exampleLedger: BookingLedger = appBookingLedger(new URL('..', import.meta.url));
