/** Comparing recorded tool arguments, whose personal-data fields the log masks, with others. */

/** What the log writes in place of a field that holds personal data. */
export const MASKED = '•••';

/**
 * Whether `a` and `b` are the same JSON value, a {@link MASKED} value on either side matching
 * anything: objects by their keys (in any order), arrays element by element.
 */
export function sameUnlessMasked(a: unknown, b: unknown): boolean {
  if (a === MASKED || b === MASKED) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameUnlessMasked(item, b[index]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const left = a as Readonly<Record<string, unknown>>;
    const right = b as Readonly<Record<string, unknown>>;
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].every((key) => sameUnlessMasked(left[key], right[key]));
  }
  return a === b;
}
