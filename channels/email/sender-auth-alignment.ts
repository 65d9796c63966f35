/**
 * Domain helpers both ways of `verifySender` share: the domain of an address, relaxed alignment
 * of a signing domain with the `From` domain, and text from a message made fit for the audit trail.
 */

/** The lower-cased domain after the last `@`, without a trailing dot or `>`; `undefined` when there is none. */
export function domainOf(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  const domain = at === -1 ? '' : address.slice(at + 1).replace(/>?\s*$/, '').replace(/\.$/, '').toLowerCase();
  return domain === '' ? undefined : domain;
}

/**
 * Relaxed alignment without a public suffix list: the same domain, or one a subdomain of the other.
 *
 * @param domain The signing domain, any case, a trailing dot allowed.
 * @param fromDomain The `From` domain as {@link domainOf} gives it (lower case, no trailing dot).
 */
export function aligned(domain: string, fromDomain: string): boolean {
  const signer = domain.replace(/\.$/, '').toLowerCase();
  return signer === fromDomain || fromDomain.endsWith(`.${signer}`) || signer.endsWith(`.${fromDomain}`);
}

/** Text from a message fit for the audit trail: control characters turned into spaces, cut at `max` characters (default 300) with `…`. */
export function clipped(text: string, max = 300): string {
  const clean = text.replace(/\p{Cc}/gu, ' ');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
