/**
 * DKIM for tests: a key pair and its DNS record, a signer, and a DNS resolver that answers from a
 * fixed table only, so sender verification runs without any real DNS lookup.
 */
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth';
import type { DNSResolver } from 'mailauth';

/** A DKIM signing key and the TXT record that publishes it. */
export interface DkimKeys {
  /** The signing domain (`d=`). */
  readonly domain: string;
  /** The selector (`s=`): the key is published at `<selector>._domainkey.<domain>`. */
  readonly selector: string;
  /** The RSA private key, PKCS#8 PEM. */
  readonly privateKeyPem: string;
  /** The key record's text: `v=DKIM1; k=rsa; p=<base64 SPKI>`. */
  readonly dnsTxt: string;
}

/**
 * A fresh RSA 2048 key pair for `domain` (about 0.1 s to make; share one per test file).
 *
 * @param selector - Default `sb1`.
 */
export function createDkimKeys(domain: string, selector = 'sb1'): DkimKeys {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { domain, selector, privateKeyPem: privateKey, dnsTxt: `v=DKIM1; k=rsa; p=${publicKey.toString('base64')}` };
}

/** Options of {@link signMail}. */
export interface SignMailOptions {
  /** The signature's `t=`. Default: now. */
  readonly signTime?: Date;
  /** The signature's `x=`. Default: none. */
  readonly expires?: Date;
  /** Sign only this many body bytes (`l=`). Default: the whole body. */
  readonly maxBodyLength?: number;
}

/**
 * The message with a `DKIM-Signature` (relaxed/relaxed, rsa-sha256) from `keys` on top.
 *
 * @throws Error when mailauth made no signature.
 */
export async function signMail(raw: string | Buffer, keys: DkimKeys, options: SignMailOptions = {}): Promise<Buffer> {
  const message = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const signature = { signingDomain: keys.domain, selector: keys.selector, privateKey: keys.privateKeyPem };
  // mailauth signs only what `signatureData` lists (its types require the top-level key fields, which it ignores)
  const result = await dkimSign(message, {
    ...signature,
    canonicalization: 'relaxed/relaxed',
    ...(options.signTime === undefined ? {} : { signTime: options.signTime }),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
    signatureData: [{ ...signature, ...(options.maxBodyLength === undefined ? {} : { maxBodyLength: options.maxBodyLength }) }],
  });
  if (result.signatures === '') {
    throw new Error(`mailauth made no DKIM signature: ${result.errors.map((failure) => failure.err.message).join('; ') || 'no reason given'}`);
  }
  return Buffer.concat([Buffer.from(result.signatures), message]);
}

/** The records of one DNS name, by type. TXT records are lists of strings (a long record is split), as `dns.promises.resolve` gives them. */
export interface FakeDnsEntry {
  readonly TXT?: readonly (readonly string[])[];
  readonly A?: readonly string[];
  readonly AAAA?: readonly string[];
  readonly CNAME?: readonly string[];
}

/** DNS names (lower case, no trailing dot) to their records. */
export type FakeDnsRecords = Readonly<Record<string, FakeDnsEntry>>;

/** A resolver that also tells which questions it was asked. */
export type FakeDnsResolver = DNSResolver & { readonly queries: readonly string[] };

/**
 * A resolver shaped like `dns.promises.resolve`, as `mailauth` takes it, answering only from
 * `records`: a name that is not there rejects like Node's resolver with `code: 'ENOTFOUND'`, a name
 * without records of the asked type with `code: 'ENODATA'`. Every question is kept in `queries`
 * (`"sb1._domainkey.example.com TXT"`).
 *
 * @example
 * const resolver = fakeDnsResolver(dkimDnsRecords(keys));
 * await verifySender(signed, { from: 'grace@example.com', resolver });
 */
export function fakeDnsResolver(records: FakeDnsRecords): FakeDnsResolver {
  const queries: string[] = [];
  const resolve = (name: string, rrtype: string): Promise<string[][] | string[]> => {
    const key = name.toLowerCase().replace(/\.$/, '');
    queries.push(`${key} ${rrtype}`);
    const entry = Object.hasOwn(records, key) ? records[key] : undefined;
    if (entry === undefined) return Promise.reject(dnsError('ENOTFOUND', rrtype, name));
    const answer = rrtype === 'TXT' ? entry.TXT?.map((strings) => [...strings]) : recordsOf(entry, rrtype);
    return answer === undefined ? Promise.reject(dnsError('ENODATA', rrtype, name)) : Promise.resolve(answer);
  };
  return Object.assign(resolve, { queries });
}

function recordsOf(entry: FakeDnsEntry, rrtype: string): string[] | undefined {
  if (rrtype === 'A') return entry.A?.slice();
  if (rrtype === 'AAAA') return entry.AAAA?.slice();
  if (rrtype === 'CNAME') return entry.CNAME?.slice();
  return undefined;
}

function dnsError(code: 'ENOTFOUND' | 'ENODATA', rrtype: string, name: string): Error {
  const syscall = `query${rrtype.charAt(0)}${rrtype.slice(1).toLowerCase()}`;
  return Object.assign(new Error(`${syscall} ${code} ${name}`), { code, syscall, hostname: name });
}

/**
 * The DNS records that vouch for mail signed with `keys`: the key at
 * `<selector>._domainkey.<domain>` (split into 255-character strings like a real TXT record) and a
 * DMARC record at `_dmarc.<domain>`.
 *
 * @param dmarcRecord - Default `v=DMARC1; p=reject`; `false` publishes none.
 */
export function dkimDnsRecords(keys: DkimKeys, dmarcRecord: string | false = 'v=DMARC1; p=reject'): FakeDnsRecords {
  const key = { [`${keys.selector}._domainkey.${keys.domain}`]: { TXT: [chunks(keys.dnsTxt, 255)] } };
  return dmarcRecord === false ? key : { ...key, [`_dmarc.${keys.domain}`]: { TXT: [[dmarcRecord]] } };
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}
