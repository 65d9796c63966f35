/**
 * Which link targets the renderers keep, and how a link reads as text.
 */

/** Schemes a rendered link may use. Anything else (javascript:, data:, relative paths) is dropped to its label. */
export const SAFE_URL_SCHEMES: readonly string[] = ['http', 'https', 'mailto'];

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Percent-encodes what may not appear raw in a URL (spaces, quotes, angle brackets, `|`, controls, non-ASCII); keeps `%XX`. */
function encodeUnsafe(url: string): string {
  let out = '';
  for (const char of url) {
    if (/^[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]$/.test(char)) out += char;
    else out += char.isWellFormed() ? encodeURIComponent(char).replace(/'/g, '%27') : '%EF%BF%BD';
  }
  return out.replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
}

/**
 * `url` made safe to emit: trimmed, percent-encoded where needed, and `undefined` unless its scheme
 * is one of {@link SAFE_URL_SCHEMES}.
 *
 * @example
 * safeUrl('https://example.com/a b'); // 'https://example.com/a%20b'
 * safeUrl('javascript:alert(1)');     // undefined
 */
export function safeUrl(url: string): string | undefined {
  const trimmed = url.trim();
  const scheme = SCHEME.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined || !SAFE_URL_SCHEMES.includes(scheme)) return undefined;
  const encoded = encodeUnsafe(trimmed);
  return encoded.length > scheme.length + 1 ? encoded : undefined;
}

/**
 * Whether a link's label says nothing more than its URL: the same text, or the URL without its
 * `https://`, `http://` or `mailto:` prefix (as autolinked `www.` addresses and e-mail addresses
 * are). Such links are written once, not as `label: url`.
 */
export function labelIsUrl(label: string, url: string): boolean {
  const plain = label.trim();
  if (plain === '' || plain === url) return true;
  const bare = url.replace(/^(?:https?:\/\/|mailto:)/i, '');
  return plain === bare || `${plain}/` === bare;
}

/** The address of a `mailto:` URL without its query (`mailto:a@b.example?subject=x` gives `a@b.example`), else `url`. */
function shownUrl(url: string): string {
  if (!/^mailto:/i.test(url)) return url;
  const address = url.slice('mailto:'.length).split('?')[0] ?? '';
  try {
    return decodeURIComponent(address);
  } catch {
    return address;
  }
}

/** The number of a `tel:` URL made of digits, spaces, `+`, `-`, `(`, `)` and `.` only, else `undefined`. */
export function phoneNumber(url: string): string | undefined {
  const match = /^tel:([+\d][\d\s().-]{2,30})$/i.exec(url.trim());
  return match?.[1];
}

/**
 * How a link reads in plain text: `label: url`, or the shorter of the two alone when the label is
 * the URL (see {@link labelIsUrl}), or just the label when the URL is not safe. An e-mail link
 * shows its address, without `mailto:` and query; a `tel:` link its number.
 */
export function linkAsText(label: string, url: string): string {
  const phone = phoneNumber(url);
  if (phone !== undefined) return label.trim() === phone || label.trim() === '' ? phone : `${label}: ${phone}`;
  const safe = safeUrl(url);
  if (safe === undefined) return label;
  const shown = shownUrl(safe);
  if (labelIsUrl(label, safe) || label.trim() === shown) return label.trim() === '' ? shown : label.trim();
  return `${label}: ${shown}`;
}

/** An image in a text target: `alt: url`, the URL alone without alt text, the alt text alone for an unsafe URL. */
export function imageAsText(alt: string, url: string): string {
  const safe = safeUrl(url);
  if (safe === undefined) return alt;
  return alt.trim() === '' ? safe : `${alt}: ${safe}`;
}
