/**
 * The verdict of our own DKIM and DMARC verification (`sender-auth-dkim.ts`): which signatures
 * may vouch, whether one does, and the words for the audit trail.
 */
import type { DKIMResult, DMARCResult } from 'mailauth';
import { aligned, clipped } from './sender-auth-alignment.ts';
import type { SenderVerdict } from './sender-auth-types.ts';

/** A passing signature that may vouch: key not in testing mode (t=y), the whole body signed (no short l=). */
export function countsAsPass(result: DKIMResult): boolean {
  return result.status.result === 'pass' && result.status.testing !== true && (result.status.underSized ?? 0) === 0;
}

/**
 * Verified when DMARC passes, or when it does not fail and a usable signature is aligned with
 * `fromDomain` both by `mailauth` (public suffix list) and by {@link aligned}.
 *
 * @param signatures Every DKIM signature of the message, described when none vouches.
 * @param usable Those of `signatures` that {@link countsAsPass}.
 * @param policy The DMARC evaluation, or `false` when `mailauth` did not evaluate it.
 */
export function judgeSignatures(signatures: readonly DKIMResult[], usable: readonly DKIMResult[], policy: DMARCResult | false, fromDomain: string): SenderVerdict {
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

/** One signature in words, with why it does not vouch when it passed but does not count. */
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
