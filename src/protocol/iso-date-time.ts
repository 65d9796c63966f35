/** The one date-time check of the protocol and the channels: ISO 8601 with a zone, naming a real time. */

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Whether `value` is an ISO 8601 date-time with a zone (`2026-03-01T12:00:00.000Z`, `2026-03-01T13:00+01:00`) that names a real time. */
export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && Number.isFinite(Date.parse(value));
}
