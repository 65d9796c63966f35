/**
 * The shapes of `verifySender` (`sender-auth.ts`, which re-exports them): its options and its
 * verdict, shared by both ways of deciding.
 */
import type { DNSResolver } from 'mailauth';

/** Whether the sender is who the `From` address says, and why, in words for an audit trail. */
export interface SenderVerdict {
  readonly verified: boolean;
  /** E.g. `DKIM pass d=example.com aligned with From; DMARC pass (p=REJECT)` or `no DKIM signature`. */
  readonly basis: string;
}

/** Options of `verifySender`. */
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
