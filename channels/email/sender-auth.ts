/**
 * Who really sent a message: whether its `From` domain vouched for it with DKIM (and DMARC), so an
 * approval decided by email can be trusted. SPF plays no part: it describes the SMTP peer of the
 * last hop, which a mailbox read over IMAP does not know.
 *
 * Two ways, chosen by configuration (`EMAIL_TRUSTED_AUTHSERV_ID`):
 * - the operator's own receiving server already checked the message and wrote the topmost
 *   `Authentication-Results` header bearing its authserv-id (RFC 8601): that header is read;
 * - otherwise the service verifies DKIM signatures and the DMARC policy itself with `mailauth`.
 */
import { dkimVerify, dmarc } from 'mailauth';
import type { DKIMResult, DKIMVerifyResult, DMARCResult, DNSResolver } from 'mailauth';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { headerFieldsFromLines } from './loop-guards.ts';
import type { HeaderField, RawHeaderLine } from './loop-guards.ts';

/** Whether the sender is who the `From` address says, and why, in words for an audit trail. */
export interface SenderVerdict {
  readonly verified: boolean;
  /** E.g. `DKIM pass d=example.com aligned with From; DMARC pass (p=REJECT)` or `no DKIM signature`. */
  readonly basis: string;
}

/** Options of {@link verifySender}. */
export interface SenderAuthOptions {
  /** The bare `From` address the message will be attributed to (`grace@example.com`). */
  readonly from: string;
  /**
   * The authserv-id of the operator's receiving server (`mx.example.com`, compared case-insensitively).
   * When set, only that server's topmost `Authentication-Results` header decides and nothing is
   * looked up. Default unset: DKIM and DMARC are verified here.
   */
  readonly trustedAuthservId?: string | undefined;
  /**
   * Resolves DNS names for DKIM keys and DMARC records; shaped like `dns.promises.resolve`
   * (`(name, 'TXT') => string[][]`, rejecting with `code: 'ENOTFOUND'` or `'ENODATA'` when there is
   * no record). Default: the system resolver.
   */
  readonly resolver?: DNSResolver | undefined;
  /** The time signature timestamps and expiry (`t=`, `x=`) are checked against. Default: now. */
  readonly now?: Date | undefined;
}

/**
 * Decides whether `raw` (the whole message as received, headers and body) really comes from
 * the domain of `options.from`.
 *
 * Verified when the topmost `Authentication-Results` header of the trusted server says
 * `dmarc=pass`, or `dkim=pass` for a domain aligned with the `From` domain (and no `dmarc=fail`);
 * without a trusted server, when a DKIM signature verifies here for a domain aligned with the
 * `From` domain and the domain's DMARC policy, if it has one, passes. Signatures whose key is in
 * testing mode (`t=y`), that leave part of the body unsigned (`l=`), that use rsa-sha1, or whose
 * timestamps do not hold at `now` do not count.
 *
 * A message without a readable header block is not verified (`the message has 0 From header
 * fields`) rather than refused.
 *
 * @throws {SwitchboardError} `channel.invalid` when `raw` is not a Buffer or `mailauth` cannot read it at all.
 * @example
 * const verdict = await verifySender(raw, { from: 'grace@example.com', trustedAuthservId: env.email.trustedAuthservId });
 * if (!verdict.verified) log.info({ basis: verdict.basis }, 'reply not trusted to decide');
 */
export async function verifySender(raw: Buffer, options: SenderAuthOptions): Promise<SenderVerdict> {
  if (!Buffer.isBuffer(raw)) throw new SwitchboardError('channel.invalid', 'The message to verify is not a Buffer of its raw bytes.');
  const fromDomain = domainOf(options.from);
  if (fromDomain === undefined) return { verified: false, basis: `the From address "${clipped(options.from, 100)}" has no domain` };
  if (options.trustedAuthservId !== undefined) return fromTrustedHeader(raw, options.trustedAuthservId.toLowerCase(), fromDomain);
  return fromOwnVerification(raw, fromDomain, options);
}

/** The lower-cased domain after the last `@`, without a trailing dot; `undefined` when there is none. */
function domainOf(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  const domain = at === -1 ? '' : address.slice(at + 1).replace(/>?\s*$/, '').replace(/\.$/, '').toLowerCase();
  return domain === '' ? undefined : domain;
}

/** Text from a message fit for the audit trail: control characters removed, cut at `max` characters. */
function clipped(text: string, max = 300): string {
  const clean = text.replace(/\p{Cc}/gu, ' ');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** Relaxed alignment without a public suffix list: the same domain, or one a subdomain of the other. */
function aligned(domain: string, fromDomain: string): boolean {
  const signer = domain.replace(/\.$/, '').toLowerCase();
  return signer === fromDomain || fromDomain.endsWith(`.${signer}`) || signer.endsWith(`.${fromDomain}`);
}

// ---------------------------------------------------------------------------------------------
// The trusted server's Authentication-Results header
// ---------------------------------------------------------------------------------------------

/** One result of an `Authentication-Results` header: `dkim=pass header.d=example.com`. */
interface AuthResult {
  readonly method: string;
  readonly result: string;
  /** `ptype.property` (and `reason`) to value, names lower-cased. */
  readonly properties: ReadonlyMap<string, string>;
}

function fromTrustedHeader(raw: Buffer, authservId: string, fromDomain: string): SenderVerdict {
  const source = `trusted Authentication-Results from ${authservId}`;
  // RFC 8601 section 5: the trusted server removes headers claiming its id that it did not add, so
  // the topmost one bearing its id is its own; anything with that id further down is not looked at.
  const header = headerFields(raw)
    .filter((field) => field.name === 'authentication-results')
    .map((field) => parseAuthenticationResults(field.value))
    .find((parsed) => parsed.authservId === authservId);
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

function describeResult(result: AuthResult): string {
  const named = ['header.d', 'header.i', 'header.from'].find((property) => result.properties.has(property));
  const detail = named === undefined ? '' : ` ${named}=${result.properties.get(named) ?? ''}`;
  return clipped(`${result.method}=${result.result}${detail}`, 200);
}

/** The header fields of a raw message, top first (everything before the first empty line). */
function headerFields(raw: Buffer): HeaderField[] {
  const ends = [raw.indexOf('\r\n\r\n'), raw.indexOf('\n\n')].filter((index) => index !== -1);
  const block = raw.subarray(0, ends.length === 0 ? raw.length : Math.min(...ends)).toString('latin1');
  const lines: RawHeaderLine[] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = lines.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) {
      lines[lines.length - 1] = { key: last.key, line: `${last.line}\r\n${line}` };
    } else if (line.includes(':')) {
      lines.push({ key: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line });
    }
  }
  return headerFieldsFromLines(lines);
}

/** The authserv-id (lower case) and results of an `Authentication-Results` value (RFC 8601 section 2.2). */
function parseAuthenticationResults(value: string): { authservId: string; results: AuthResult[] } {
  const [head = '', ...resinfos] = splitOutsideQuotes(withoutComments(value), ';');
  const authservId = unquote(head.trim().split(/\s+/, 1)[0] ?? '').toLowerCase();
  const results = resinfos.map(parseResult).filter((result): result is AuthResult => result !== undefined);
  return { authservId, results };
}

/** One `method=result property=value …` segment; `undefined` for `none` or anything unreadable. */
function parseResult(segment: string): AuthResult | undefined {
  const pairs = [...segment.matchAll(/([A-Za-z0-9_.\-/]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)/g)];
  const [first, ...rest] = pairs;
  if (first === undefined) return undefined;
  const method = (first[1] ?? '').split('/', 1)[0]?.toLowerCase() ?? '';
  const properties = new Map(rest.map((pair) => [(pair[1] ?? '').toLowerCase(), unquote(pair[2] ?? '')] as const));
  return { method, result: unquote(first[2] ?? '').toLowerCase(), properties };
}

/** Drops RFC 5322 comments (nested, with `\` escapes), keeping quoted strings as they are. */
function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    if (char === '\\') {
      if (depth === 0) out += value.slice(index, index + 2);
      index += 1;
    } else if (quoted) {
      out += char;
      quoted = char !== '"';
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')' && depth > 0) {
      depth -= 1;
      if (depth === 0) out += ' ';
    } else if (depth === 0) {
      out += char;
      quoted = char === '"';
    }
  }
  return out;
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    if (char === '\\') {
      current += value.slice(index, index + 2);
      index += 1;
    } else if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
      if (char === '"') quoted = !quoted;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

// ---------------------------------------------------------------------------------------------
// Our own DKIM and DMARC verification (mailauth)
// ---------------------------------------------------------------------------------------------

async function fromOwnVerification(raw: Buffer, fromDomain: string, options: SenderAuthOptions): Promise<SenderVerdict> {
  const dkim = await readSignatures(raw, options);
  const mismatch = authorMismatch(dkim, fromDomain);
  if (mismatch !== undefined) return { verified: false, basis: mismatch };
  const signatures = dkim.results.filter((result) => result.signingDomain !== undefined);
  if (signatures.length === 0) return { verified: false, basis: 'no DKIM signature' };
  const usable = signatures.filter(countsAsPass);
  const policy = await dmarcPolicy(dkim, usable, options);
  return judgeSignatures(signatures, usable, policy, fromDomain);
}

async function readSignatures(raw: Buffer, options: SenderAuthOptions): Promise<DKIMVerifyResult> {
  try {
    return await dkimVerify(raw, {
      ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
      ...(options.now === undefined ? {} : { curTime: options.now }),
      // RFC 8301: rsa-sha1 signatures are not valid
      rejectRsaSha1: true,
    });
  } catch (error: unknown) {
    throw new SwitchboardError('channel.invalid', 'The message could not be read to verify its sender.', { cause: error });
  }
}

/** DMARC with our DKIM results only: SPF is left out (`spfDomains: []`), so only aligned DKIM can pass it. */
async function dmarcPolicy(dkim: DKIMVerifyResult, usable: readonly DKIMResult[], options: SenderAuthOptions): Promise<DMARCResult | false> {
  const dkimDomains = usable.flatMap((result) => (result.signingDomain === undefined ? [] : [{ domain: result.signingDomain }]));
  try {
    return await dmarc({
      headerFrom: dkim.headerFrom,
      fromFields: dkim.fromFields,
      spfDomains: [],
      dkimDomains,
      ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
    });
  } catch (error: unknown) {
    throw new SwitchboardError('channel.invalid', 'The DMARC policy of the sender could not be evaluated.', { cause: error });
  }
}

/** Why the message's own `From` header does not let us speak for `fromDomain`, if it does not. */
function authorMismatch(dkim: DKIMVerifyResult, fromDomain: string): string | undefined {
  if (dkim.fromFields !== 1) return `the message has ${String(dkim.fromFields)} From header fields`;
  const domains = [...new Set(dkim.headerFrom.map((address) => domainOf(address) ?? ''))];
  if (domains.length === 1 && domains[0] === fromDomain) return undefined;
  return `From ${fromDomain} does not match the message's From header (${clipped(domains.join(', '), 200) || 'no address'})`;
}

/** A passing signature that may vouch: key not in testing mode (t=y), the whole body signed (no short l=). */
function countsAsPass(result: DKIMResult): boolean {
  return result.status.result === 'pass' && result.status.testing !== true && (result.status.underSized ?? 0) === 0;
}

function judgeSignatures(signatures: readonly DKIMResult[], usable: readonly DKIMResult[], policy: DMARCResult | false, fromDomain: string): SenderVerdict {
  const dmarcWords = describeDmarc(policy);
  if (policy !== false && policy.status.result === 'pass') {
    return { verified: true, basis: `DKIM pass d=${policy.alignment.dkim.result ?? ''} aligned with From; ${dmarcWords}` };
  }
  // mailauth's `aligned`: relaxed alignment of the signing domain with the From domain, by the public suffix list
  const alignedPass = usable.find((result) => typeof result.status.aligned === 'string' && aligned(result.signingDomain ?? '', fromDomain));
  const dmarcFailed = policy !== false && policy.status.result === 'fail';
  if (!dmarcFailed && alignedPass !== undefined) {
    return { verified: true, basis: `DKIM pass d=${alignedPass.signingDomain ?? ''} aligned with From; ${dmarcWords}` };
  }
  return { verified: false, basis: `${clipped(signatures.map((result) => describeSignature(result, fromDomain)).join(', '))}; ${dmarcWords}` };
}

function describeSignature(result: DKIMResult, fromDomain: string): string {
  const signer = `d=${result.signingDomain ?? '?'}`;
  const { status } = result;
  if (status.result !== 'pass') return `DKIM ${status.result} ${signer}${typeof status.comment === 'string' ? ` (${status.comment})` : ''}`;
  if (status.testing === true) return `DKIM pass ${signer} but its key is in testing mode (t=y)`;
  if ((status.underSized ?? 0) > 0) return `DKIM pass ${signer} but ${String(status.underSized)} body bytes are not signed (l=)`;
  if (typeof status.aligned !== 'string' || !aligned(result.signingDomain ?? '', fromDomain)) return `DKIM pass ${signer} not aligned with From ${fromDomain}`;
  return `DKIM pass ${signer}`;
}

function describeDmarc(policy: DMARCResult | false): string {
  if (policy === false) return 'DMARC not evaluated';
  const { result } = policy.status;
  if (result === 'none') return 'no DMARC record';
  return `DMARC ${result}${typeof policy.status.comment === 'string' ? ` (${policy.status.comment})` : ''}`;
}
