/**
 * Times for people: in the viewer's own locale and time zone, always naming the zone, so a deadline
 * is never read in the wrong one: `Tue, 1 Jan 2030, 11:00 GMT` in London, `Tue, Jan 1, 2030,
 * 6:00 AM EST` in New York.
 */

const FORMAT = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** `iso` in the viewer's local time with its zone; the raw value when it does not parse, `''` for none. */
export function localTime(iso) {
  if (typeof iso !== 'string' || iso.length === 0) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : FORMAT.format(date);
}
