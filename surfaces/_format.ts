/**
 * What the example app's surface templates share: reading the data they are given (which nothing
 * checks for them) and writing times and money for people. The leading `_` keeps the app loader from
 * treating this file as a template.
 */
import { formatLocalDate } from '../tools/format_itinerary.ts';

/** `Fri 18 Dec 2026`: the date of an ISO 8601 local date-time (or a `YYYY-MM-DD` date), as the tools write it. */
export { formatLocalDate };

/** A JSON object. */
export type Fields = Readonly<Record<string, unknown>>;

/** Whether `value` is a JSON object (not an array). */
export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The data of one kind as a list: the tools' results under the `append` merge strategy are a list
 * already, under `replace` there is one.
 */
export function asList(data: unknown): unknown[] {
  return Array.isArray(data) ? (data as unknown[]) : [data];
}

/** `object[key]` as a non-empty string; throws (so the surface is left out) when it is not one. */
export function textOf(object: Fields, key: string): string {
  const value = object[key];
  if (typeof value !== 'string' || value === '') throw new Error(`"${key}" should be a non-empty string`);
  return value;
}

/** `object[key]` as a finite number; throws when it is not one. */
export function numberOf(object: Fields, key: string): number {
  const value = object[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`"${key}" should be a number`);
  return value;
}

/** `object[key]` as a list; throws when it is not one. */
export function listOf(object: Fields, key: string): unknown[] {
  const value = object[key];
  if (!Array.isArray(value)) throw new Error(`"${key}" should be a list`);
  return value as unknown[];
}

/** `object[key]` as a JSON object; throws when it is not one. */
export function fieldsOf(object: unknown, key: string): Fields {
  const value = isFields(object) ? object[key] : undefined;
  if (!isFields(value)) throw new Error(`"${key}" should be an object`);
  return value;
}

/** `07:25`: the local time of an ISO 8601 local date-time, read from its text (no zone conversion). */
export function localTime(iso: string): string {
  return iso.slice(11, 16);
}

/** `07:25`, or `Sat 19 Dec 2026, 01:15` when `iso` falls on another day than `sameDayAs`. */
export function timeOnDay(iso: string, sameDayAs: string): string {
  return iso.slice(0, 10) === sameDayAs.slice(0, 10) ? localTime(iso) : `${formatLocalDate(iso)}, ${localTime(iso)}`;
}

/** `GBP 236.00`: the amount after its currency code, as the tools write money. */
export function money(amount: number, currency: string): string {
  return `${currency} ${amount.toFixed(2)}`;
}

/** `2 passengers`, `1 passenger`. */
export function count(amount: number, word: string): string {
  return `${String(amount)} ${word}${amount === 1 ? '' : 's'}`;
}
