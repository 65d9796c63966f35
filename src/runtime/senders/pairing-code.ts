/**
 * Pairing codes: what an unknown sender gets, and what an operator types to let them in
 * (`switchboard senders approve K7QX-3MAC`). Eight characters of the approval codes' alphabet (no
 * look-alikes such as 0/O or 1/I), written as two groups of four: 25^8 (about 1.5 × 10^11) codes,
 * against a handful live at a time and a few wrong guesses allowed per operator an hour.
 */
import { randomInt } from 'node:crypto';
import { SHORT_CODE_ALPHABET } from '../approvals/short-code.ts';

/** Characters of a pairing code, without the separator. */
export const PAIRING_CODE_LENGTH = 8;

/** A new random code, `XXXX-XXXX`, from `crypto.randomInt`. */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i += 1) code += SHORT_CODE_ALPHABET.charAt(randomInt(SHORT_CODE_ALPHABET.length));
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The stored form of a typed code (`k7qx 3mac`, `K7QX3MAC` and `K7QX-3MAC` are one code), or
 * `undefined` when it cannot be a code.
 */
export function normalizePairingCode(typed: string): string | undefined {
  const bare = typed.toUpperCase().replace(/[\s-]/g, '');
  if (bare.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const char of bare) if (!SHORT_CODE_ALPHABET.includes(char)) return undefined;
  return `${bare.slice(0, 4)}-${bare.slice(4)}`;
}
