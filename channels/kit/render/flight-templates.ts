/**
 * Built-in data templates for the example app's tools: `flight-results` (search_flights) and
 * `booking` (book_flight). Text targets get one line per flight, e.g.
 * `MW 304 Meridian Airways, 18 Dec 07:25 → 09:40, direct, £118 pp`; HTML gets a table.
 */

import type { PhrasingContent } from 'mdast';
import { dayMonth, dayShift, localTime, longDate, money, stopsText } from './flight-format.ts';
import { isRecord, numberField, stringField } from './json-fields.ts';
import { headingNode, linesNode, listNode, paragraphNode, strongNode, tableNode } from './mdast-build.ts';
import type { DataTemplate } from './template-types.ts';

/** Seats left at or below which a flight line says how many remain. */
export const FEW_SEATS = 3;

type Fields = Readonly<Record<string, unknown>>;

function flightName(flight: Fields): string {
  return [stringField(flight, 'flightNumber'), stringField(flight, 'airline')].filter((part) => part !== undefined).join(' ');
}

function times(flight: Fields): { departs: string; arrives: string } {
  const departure = stringField(flight, 'departure');
  const arrival = stringField(flight, 'arrival');
  const departs = departure === undefined ? '' : `${dayMonth(departure)} ${localTime(departure)}`;
  const arrives = arrival === undefined ? '' : `${localTime(arrival)}${departure === undefined ? '' : dayShift(departure, arrival)}`;
  return { departs, arrives };
}

function price(flight: Fields, passengers: number): string {
  const each = numberField(flight, 'pricePerPerson');
  const currency = stringField(flight, 'currency');
  if (each === undefined) return '';
  const total = numberField(flight, 'totalPrice') ?? Math.round(each * passengers * 100) / 100;
  return passengers > 1 ? `${money(each, currency)} pp, ${money(total, currency)} total` : `${money(each, currency)} pp`;
}

function seats(flight: Fields): string {
  const left = numberField(flight, 'seatsLeft');
  if (left === undefined || left > FEW_SEATS) return '';
  return left === 1 ? '1 seat left' : `${left} seats left`;
}

function flightLine(flight: Fields, passengers: number): string {
  const { departs, arrives } = times(flight);
  const stops = numberField(flight, 'stops');
  const when = departs === '' ? '' : arrives === '' ? departs : `${departs} → ${arrives}`;
  const fields = [flightName(flight), when, stops === undefined ? '' : stopsText(stops), price(flight, passengers), seats(flight)];
  return fields.filter((field) => field !== '').join(', ');
}

/** `flight-results`: a heading with route, date and passengers, then one line (or table row) per flight. */
export const flightResultsTemplate: DataTemplate = (value, context) => {
  if (!isRecord(value) || !Array.isArray(value['flights'])) return undefined;
  const flights = value['flights'].filter(isRecord);
  const route = isRecord(value['route']) ? value['route'] : {};
  const passengers = numberField(value, 'passengers') ?? 1;
  const date = stringField(value, 'date');
  const origin = stringField(route, 'origin') ?? stringField(flights[0] ?? {}, 'origin');
  const destination = stringField(route, 'destination') ?? stringField(flights[0] ?? {}, 'destination');
  const title = [
    origin !== undefined && destination !== undefined ? `Flights ${origin} → ${destination}` : 'Flights',
    date === undefined ? undefined : longDate(date),
    passengers > 1 ? `${passengers} passengers` : undefined,
  ];
  const heading = headingNode(title.filter((part) => part !== undefined).join(', '));
  if (flights.length === 0) return [heading, paragraphNode('No flights found.')];
  if (context.format === 'text') return [heading, listNode(flights.map((flight) => paragraphNode(flightLine(flight, passengers))))];
  const rows = flights.map((flight) => {
    const { departs, arrives } = times(flight);
    const stops = numberField(flight, 'stops');
    return [flightName(flight), departs, arrives, stops === undefined ? '' : stopsText(stops), price(flight, passengers), seats(flight)];
  });
  return [heading, tableNode(['Flight', 'Departs', 'Arrives', 'Stops', 'Price', 'Seats'], rows)];
};

function labelled(label: string, value: string): PhrasingContent[] {
  return [strongNode(`${label}:`), { type: 'text', value: ` ${value}` }];
}

/** `booking`: a heading with the status, then reference, flight, passengers and total as lines. */
export const bookingTemplate: DataTemplate = (value) => {
  if (!isRecord(value)) return undefined;
  const reference = stringField(value, 'bookingReference');
  const flight = isRecord(value['flight']) ? value['flight'] : undefined;
  if (reference === undefined && flight === undefined) return undefined;
  const status = stringField(value, 'status') ?? 'confirmed';
  const lines: PhrasingContent[][] = [];
  if (reference !== undefined) lines.push(labelled('Reference', reference));
  if (flight !== undefined) {
    const departure = stringField(flight, 'departure');
    const arrival = stringField(flight, 'arrival');
    const from = [stringField(flight, 'origin'), departure === undefined ? undefined : localTime(departure)];
    const to = [stringField(flight, 'destination'), arrival === undefined ? undefined : localTime(arrival)];
    const leg = `${from.filter(Boolean).join(' ')} → ${to.filter(Boolean).join(' ')}${departure !== undefined && arrival !== undefined ? dayShift(departure, arrival) : ''}`;
    const parts = [flightName(flight), leg.trim() === '→' ? '' : leg, departure === undefined ? '' : longDate(departure)];
    lines.push(labelled('Flight', parts.filter((part) => part !== '').join(', ')));
  }
  const names = Array.isArray(value['passengers'])
    ? value['passengers'].map((passenger) => (isRecord(passenger) ? stringField(passenger, 'fullName') : undefined)).filter((name) => name !== undefined)
    : [];
  if (names.length > 0) lines.push(labelled(names.length === 1 ? 'Passenger' : 'Passengers', names.join(', ')));
  const total = numberField(value, 'totalCost');
  if (total !== undefined) lines.push(labelled('Total', money(total, stringField(value, 'currency'))));
  return [headingNode(`Booking ${status}`), linesNode(lines)];
};
