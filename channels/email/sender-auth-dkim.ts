/**
 * The second way of `verifySender`: DKIM signatures and the DMARC policy verified here with
 * `mailauth`, for when no trusted receiving server vouches for the message.
 */
import { dkimVerify, dmarc } from 'mailauth';
import type { DKIMResult, DKIMVerifyResult, DMARCResult } from 'mailauth';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { clipped, domainOf } from './sender-auth-alignment.ts';
import { countsAsPass, judgeSignatures } from './sender-auth-dkim-verdict.ts';
import type { SenderAuthOptions, SenderVerdict } from './sender-auth-types.ts';

/** What the own verification reads of {@link SenderAuthOptions}. */
type LookupOptions = Pick<SenderAuthOptions, 'resolver' | 'now'>;

/**
 * Verifies the DKIM signatures of `raw` and the DMARC policy of `fromDomain` (DNS through
 * `options.resolver`, signature times against `options.now`). Not verified when the message's own
 * `From` header is not exactly one field with an address in `fromDomain`, or has no DKIM signature.
 *
 * @param fromDomain The `From` domain, in lower case.
 * @throws {SwitchboardError} `channel.invalid` when `mailauth` cannot read the message or evaluate DMARC.
 */
export async function fromOwnVerification(raw: Buffer, fromDomain: string, options: LookupOptions): Promise<SenderVerdict> {
  const dkim = await readSignatures(raw, options);
  const mismatch = authorMismatch(dkim, fromDomain);
  if (mismatch !== undefined) return { verified: false, basis: mismatch };
  const signatures = dkim.results.filter((result) => result.signingDomain !== undefined);
  if (signatures.length === 0) return { verified: false, basis: 'no DKIM signature' };
  const usable = signatures.filter(countsAsPass);
  const policy = await dmarcPolicy(dkim, usable, options);
  return judgeSignatures(signatures, usable, policy, fromDomain);
}

async function readSignatures(raw: Buffer, options: LookupOptions): Promise<DKIMVerifyResult> {
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
async function dmarcPolicy(dkim: DKIMVerifyResult, usable: readonly DKIMResult[], options: LookupOptions): Promise<DMARCResult | false> {
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
