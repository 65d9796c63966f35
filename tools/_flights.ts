/**
 * The example app's flight data: a small invented dataset bundled in `data/flights.json`, read once
 * per process. Shared by the flight tools; the leading `_` keeps the app loader from treating this
 * file as a tool module.
 */
import { readFile } from 'node:fs/promises';

/** Currencies fares are quoted in (the currency of the departure airport's country). */
export type Currency = 'EUR' | 'GBP';

/** One scheduled flight of the sample dataset. Times are local, with their UTC offset. */
export interface Flight {
  /** Airline code and number with a space, `MW 304`. */
  readonly flightNumber: string;
  readonly airline: string;
  /** IATA code of the departure airport. */
  readonly origin: string;
  /** IATA code of the arrival airport. */
  readonly destination: string;
  /** ISO 8601 local time with offset, `2026-12-18T07:25:00+00:00`. */
  readonly departure: string;
  /** ISO 8601 local time with offset. */
  readonly arrival: string;
  readonly pricePerPerson: number;
  readonly currency: Currency;
  /** 0 for a nonstop flight. */
  readonly stops: number;
  readonly seatsLeft: number;
}

/** The airports of the dataset, by IATA code. */
export const AIRPORTS: Readonly<Record<string, string>> = {
  AMS: 'Amsterdam Schiphol',
  BCN: 'Barcelona El Prat',
  CDG: 'Paris Charles de Gaulle',
  FCO: 'Rome Fiumicino',
  FRA: 'Frankfurt',
  LHR: 'London Heathrow',
  LIS: 'Lisbon',
  MAD: 'Madrid Barajas',
};

let flights: Promise<readonly Flight[]> | undefined;

async function readFlights(): Promise<readonly Flight[]> {
  const text = await readFile(new URL('./data/flights.json', import.meta.url), 'utf8');
  const parsed = JSON.parse(text) as { flights?: unknown };
  if (!Array.isArray(parsed.flights)) throw new Error('data/flights.json has no "flights" list');
  return Object.freeze(parsed.flights as Flight[]);
}

/** Every flight of the dataset; the file is read on first use only. */
export function allFlights(): Promise<readonly Flight[]> {
  flights ??= readFlights().catch((error: unknown) => {
    flights = undefined;
    throw error;
  });
  return flights;
}

/** The local departure date of a flight, `YYYY-MM-DD`. */
export function departureDate(flight: Flight): string {
  return flight.departure.slice(0, 10);
}

/** A flight number compared loosely: `mw304`, `MW 304` and `MW-304` are the same. */
export function flightKey(flightNumber: string): string {
  return flightNumber.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** The flight `flightNumber` departing on `date`, if the dataset has it. */
export async function findFlight(flightNumber: string, date: string): Promise<Flight | undefined> {
  const key = flightKey(flightNumber);
  return (await allFlights()).find((flight) => flightKey(flight.flightNumber) === key && departureDate(flight) === date);
}

/** `HH:MM` of an ISO local time. */
export function localTime(iso: string): string {
  return iso.slice(11, 16);
}

/** An amount with its currency, `GBP 118.00`. */
export function money(amount: number, currency: Currency): string {
  return `${currency} ${amount.toFixed(2)}`;
}
