/**
 * How many SMS segments a text takes. A text of GSM-7 characters only is sent as GSM-7 (160
 * septets in a single message, 153 per segment of a concatenated one; the extension-table
 * characters `^ { } \ [ ~ ] | €` and form feed take two septets each). Anything else makes the
 * whole text UCS-2 (70 UTF-16 code units in a single message, 67 per segment; emoji outside the
 * BMP take two units).
 */

/** The GSM 03.38 basic character set (one septet each); the escape position is left out. */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);

/** The GSM 03.38 extension table (escape + one septet: two each). */
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

/** Limits of one encoding: units in a single message and per segment of a concatenated message. */
const LIMITS = { 'GSM-7': { single: 160, multi: 153 }, 'UCS-2': { single: 70, multi: 67 } } as const;

/** An SMS encoding. */
export type SmsEncoding = keyof typeof LIMITS;

/** What {@link smsSegments} reports. */
export interface SmsSegments {
  /** `GSM-7` when every character is in the GSM 03.38 tables, `UCS-2` otherwise. */
  readonly encoding: SmsEncoding;
  /** Segments the text is sent as; 0 for the empty text. */
  readonly segments: number;
  /** Septets (GSM-7, extension characters counting 2) or UTF-16 code units (UCS-2). */
  readonly units: number;
}

/** Whether every character of `text` is in the GSM-7 basic or extension table. */
export function isGsm7(text: string): boolean {
  for (const char of text) if (!GSM_BASIC.has(char) && !GSM_EXTENSION.has(char)) return false;
  return true;
}

/** Units of each character, in order: never split across segments (escape pairs, surrogate pairs). */
function weights(text: string, encoding: SmsEncoding): number[] {
  return Array.from(text).map((char) => (encoding === 'GSM-7' ? (GSM_EXTENSION.has(char) ? 2 : 1) : char.length));
}

/**
 * The encoding, segment count and unit count of `text` as one SMS. Segments of a concatenated
 * message are filled in order without splitting a two-septet character or a surrogate pair.
 *
 * @example
 * smsSegments('Hello');      // { encoding: 'GSM-7', segments: 1, units: 5 }
 * smsSegments('Hi 👋');      // { encoding: 'UCS-2', segments: 1, units: 5 }
 * smsSegments('x'.repeat(161)); // { encoding: 'GSM-7', segments: 2, units: 161 }
 */
export function smsSegments(text: string): SmsSegments {
  const encoding: SmsEncoding = isGsm7(text) ? 'GSM-7' : 'UCS-2';
  const each = weights(text, encoding);
  const units = each.reduce((sum, weight) => sum + weight, 0);
  const limits = LIMITS[encoding];
  if (units === 0) return { encoding, segments: 0, units };
  if (units <= limits.single) return { encoding, segments: 1, units };
  let segments = 1;
  let used = 0;
  for (const weight of each) {
    if (used + weight > limits.multi) {
      segments += 1;
      used = 0;
    }
    used += weight;
  }
  return { encoding, segments, units };
}

/** The segment count of `text` alone: a `countFn` for `chunkText` with a limit in segments. */
export function smsSegmentCount(text: string): number {
  return smsSegments(text).segments;
}
