/**
 * Short codes: what a person types on SMS or WhatsApp text to name an approval (`APPROVE K7QX3M`).
 */
import { randomInt } from 'node:crypto';

/**
 * The 25 characters of short codes: upper-case letters and digits without look-alike pairs
 * (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
 */
export const SHORT_CODE_ALPHABET = 'ACDEFGHJKMNPQRTUVWXY34679';

/** Length of a short code, in characters. */
export const SHORT_CODE_LENGTH = 6;

/** A new random short code: {@link SHORT_CODE_LENGTH} characters of {@link SHORT_CODE_ALPHABET}, from `crypto.randomInt`. */
export function newShortCode(): string {
  let code = '';
  for (let i = 0; i < SHORT_CODE_LENGTH; i += 1) code += SHORT_CODE_ALPHABET.charAt(randomInt(SHORT_CODE_ALPHABET.length));
  return code;
}

/**
 * The stored form of a typed code: surrounding whitespace removed and upper-cased, so matching is
 * case-insensitive. Returns `undefined` when the result is not a well-formed code.
 */
export function normalizeShortCode(typed: string): string | undefined {
  const code = typed.trim().toUpperCase();
  if (code.length !== SHORT_CODE_LENGTH) return undefined;
  for (const char of code) if (!SHORT_CODE_ALPHABET.includes(char)) return undefined;
  return code;
}
