/**
 * The small cryptographic pieces channels share (the web identity, email Message-IDs): random
 * tokens, HMAC-SHA256 under a secret, and comparisons that take the same time whatever the input.
 */
import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of every random token (session ids, identities, sign-in tokens): 128 bits. */
const TOKEN_BYTES = 16;

/** A 128-bit random token as base64url: 22 characters of `A-Z a-z 0-9 - _`. */
export function randomToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether `value` has the shape of {@link randomToken}'s output. */
export function isRandomToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value);
}

/** HMAC-SHA256 of `text` under `secret`, as base64url (43 characters). */
export function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('base64url');
}

/**
 * The first `chars` characters of the base64url SHA-256 of `text` (6 bits each, at most 43): a
 * short fixed-length name for a key of any length, e.g. 16 characters (96 bits) for a dedupe list.
 */
export function shortDigest(text: string, chars: number): string {
  return hash('sha256', text, 'base64url').slice(0, chars);
}

/** SHA-256 of `text` as hex: how one-time tokens are stored, so Redis never holds a usable one. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * Compares two strings in constant time. Both are hashed first, so neither their contents nor the
 * length of the expected one leak through timing.
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = hash('sha256', given, 'buffer');
  const b = hash('sha256', expected, 'buffer');
  return timingSafeEqual(a, b);
}

/**
 * Compares a MAC a request carried with the one computed here ({@link hmac}), in constant time for
 * any value of the expected length. The length of a MAC is no secret (HMAC-SHA256 in base64url is
 * always 43 characters), so a value of another length is refused at once, and nothing is hashed
 * first: this runs on every web request (the session cookie and the CSRF token).
 */
export function sameMac(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
