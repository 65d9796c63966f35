/**
 * Who really sent a message: whether its `From` domain vouched for it with DKIM (and DMARC), so an
 * approval decided by email can be trusted. SPF plays no part: it describes the SMTP peer of the
 * last hop, which a mailbox read over IMAP does not know.
 *
 * Two ways, chosen by configuration (`EMAIL_TRUSTED_AUTHSERV_ID`):
 * - the operator's own receiving server already checked the message and wrote the topmost
 *   `Authentication-Results` header bearing its authserv-id (RFC 8601): that header is read
 *   (`sender-auth-trusted.ts`);
 * - otherwise the service verifies DKIM signatures and the DMARC policy itself with `mailauth`
 *   (`sender-auth-dkim.ts`).
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { clipped, domainOf } from './sender-auth-alignment.ts';
import { fromOwnVerification } from './sender-auth-dkim.ts';
import { fromTrustedHeader } from './sender-auth-trusted.ts';
import type { SenderAuthOptions, SenderVerdict } from './sender-auth-types.ts';

/** What {@link verifySender} takes and returns; defined in `sender-auth-types.ts`. */
export type { SenderAuthOptions, SenderVerdict } from './sender-auth-types.ts';

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
