/**
 * The first way of `verifySender`: the operator's receiving server checked the message and wrote
 * an `Authentication-Results` header bearing its authserv-id (RFC 8601); its verdict is taken.
 */
import { aligned, clipped, domainOf } from './sender-auth-alignment.ts';
import { authenticationResults, type AuthResult } from './sender-auth-results.ts';
import type { SenderVerdict } from './sender-auth-types.ts';

/**
 * The verdict of the topmost `Authentication-Results` header of `raw` bearing `authservId`: a
 * `dmarc=pass` about `fromDomain`, or else (without a `dmarc=fail`) a `dkim=pass` aligned with
 * it, verifies. Not verified when no header bears `authservId`.
 *
 * @param authservId The trusted server's authserv-id, in lower case.
 * @param fromDomain The `From` domain, in lower case.
 */
export function fromTrustedHeader(raw: Buffer, authservId: string, fromDomain: string): SenderVerdict {
  const source = `trusted Authentication-Results from ${authservId}`;
  // RFC 8601 section 5: the trusted server removes headers claiming its id that it did not add, so
  // the topmost one bearing its id is its own; anything with that id further down is not looked at.
  const header = authenticationResults(raw).find((parsed) => parsed.authservId === authservId);
  if (header === undefined) return { verified: false, basis: `no Authentication-Results header from ${authservId}` };
  return judgeResults(header.results, fromDomain, source);
}

function judgeResults(results: readonly AuthResult[], fromDomain: string, source: string): SenderVerdict {
  const dmarcResults = results.filter((result) => result.method === 'dmarc');
  const pass = dmarcResults.find((result) => result.result === 'pass' && isAbout(result, fromDomain));
  if (pass !== undefined) return { verified: true, basis: `${source}: ${describeResult(pass)}` };
  const fail = dmarcResults.find((result) => result.result === 'fail');
  if (fail !== undefined) return { verified: false, basis: `${source}: ${describeResult(fail)}` };
  const dkim = results.find((result) => result.method === 'dkim' && result.result === 'pass' && aligned(signingDomain(result), fromDomain));
  if (dkim !== undefined) return { verified: true, basis: `${source}: ${describeResult(dkim)} aligned with From ${fromDomain}` };
  const seen = clipped(results.map(describeResult).join(', ')) || 'no results';
  return { verified: false, basis: `${source}: no dmarc=pass and no dkim=pass aligned with From ${fromDomain} (${seen})` };
}

/** Whether a DMARC result is about the From domain: its `header.from` is that domain, or it names none. */
function isAbout(result: AuthResult, fromDomain: string): boolean {
  const headerFrom = result.properties.get('header.from');
  return headerFrom === undefined || headerFrom.replace(/\.$/, '').toLowerCase() === fromDomain;
}

/** `header.d`, else the domain of `header.i`; `''` when the result names neither. */
function signingDomain(result: AuthResult): string {
  const d = result.properties.get('header.d');
  if (d !== undefined) return d;
  return domainOf(result.properties.get('header.i') ?? '') ?? '';
}

/** `method=result` and the first of `header.d`, `header.i`, `header.from` it names, for the audit trail. */
function describeResult(result: AuthResult): string {
  const named = ['header.d', 'header.i', 'header.from'].find((property) => result.properties.has(property));
  const detail = named === undefined ? '' : ` ${named}=${result.properties.get(named) ?? ''}`;
  return clipped(`${result.method}=${result.result}${detail}`, 200);
}
