/**
 * Argument keys as a person reads them: `totalCost` → `Total cost`, `flight_number` → `Flight
 * number`, `passengerIDs` → `Passenger IDs`.
 */

/** A word kept as written: two or more capitals, optionally a plural `s` (`ID`, `IDs`, `IATA`). */
const ACRONYM = /^\p{Lu}{2,}s?$/u;

/**
 * Turns a camelCase, snake_case, kebab-case or dotted key into words: split at case changes,
 * underscores, hyphens, dots and letter→digit changes; lower-case every word except acronyms; capitalise
 * the first. An empty key gives `Value`.
 *
 * @example humaniseKey('returnDate_2') // 'Return date 2'
 */
export function humaniseKey(key: string): string {
  const spaced = key
    .replace(/[_\-.\s]+/g, ' ')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll}{2,})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2');
  const words = spaced
    .trim()
    .split(' ')
    .filter((word) => word !== '')
    .map((word) => (ACRONYM.test(word) ? word : word.toLowerCase()));
  const text = words.join(' ');
  if (text === '') return 'Value';
  return text.charAt(0).toUpperCase() + text.slice(1);
}
