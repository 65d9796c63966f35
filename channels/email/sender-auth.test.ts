import { promises as dnsPromises } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MockInstance } from 'vitest';
import { createDkimKeys, dkimDnsRecords, fakeDnsResolver, signMail } from '../../test/support/dkim.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { verifySender } from './sender-auth.ts';

const EXAMPLE = createDkimKeys('example.com');
const EVIL = createDkimKeys('evil.test', 'mal');

function message(options: { from?: string; headersAbove?: readonly string[]; body?: string } = {}): string {
  return [
    ...(options.headersAbove ?? []),
    `From: Grace Hopper <${options.from ?? 'grace@example.com'}>`,
    'To: Switchboard <bot@example.com>',
    'Subject: Re: Approval needed: hotel in Lyon',
    'Date: Tue, 03 Jun 2025 10:04:00 +0000',
    'Message-ID: <reply-1@example.com>',
    'In-Reply-To: <approval-1@example.com>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    options.body ?? 'APPROVE',
    '',
  ].join('\r\n');
}

let realDns: MockInstance;
beforeEach(() => {
  realDns = vi.spyOn(dnsPromises, 'resolve').mockRejectedValue(new Error('a real DNS lookup was attempted'));
});
afterEach(() => {
  expect(realDns).not.toHaveBeenCalled();
  vi.restoreAllMocks();
});

describe('verifySender with its own DKIM and DMARC checks', () => {
  it('verifies a correctly signed mail from grace@example.com, asking only the given resolver', async () => {
    const resolver = fakeDnsResolver(dkimDnsRecords(EXAMPLE));
    const verdict = await verifySender(await signMail(message(), EXAMPLE), { from: 'grace@example.com', resolver });
    expect(verdict).toEqual({ verified: true, basis: 'DKIM pass d=example.com aligned with From; DMARC pass (p=REJECT)' });
    expect(resolver.queries).toContain('sb1._domainkey.example.com TXT');
    expect(resolver.queries).toContain('_dmarc.example.com TXT');
  });

  it('does not verify the same mail with its body altered after signing', async () => {
    const signed = await signMail(message(), EXAMPLE);
    const altered = Buffer.from(signed.toString('utf8').replace('APPROVE', 'DENY'));
    const verdict = await verifySender(altered, { from: 'grace@example.com', resolver: fakeDnsResolver(dkimDnsRecords(EXAMPLE)) });
    expect(verdict).toEqual({ verified: false, basis: 'DKIM neutral d=example.com (body hash did not verify); DMARC fail (p=REJECT)' });
  });

  it('does not verify a mail whose signed From header was changed', async () => {
    const signed = await signMail(message(), EXAMPLE);
    const altered = Buffer.from(signed.toString('utf8').replace('Grace Hopper <grace', 'Grace H. <grace'));
    const verdict = await verifySender(altered, { from: 'grace@example.com', resolver: fakeDnsResolver(dkimDnsRecords(EXAMPLE)) });
    expect(verdict.verified).toBe(false);
    expect(verdict.basis).toMatch(/^DKIM (fail|neutral) d=example\.com/);
  });

  it('does not verify a mail signed by another domain (d=evil.test) with From example.com', async () => {
    const resolver = fakeDnsResolver({ ...dkimDnsRecords(EXAMPLE), ...dkimDnsRecords(EVIL) });
    const verdict = await verifySender(await signMail(message(), EVIL), { from: 'grace@example.com', resolver });
    expect(verdict).toEqual({ verified: false, basis: 'DKIM pass d=evil.test not aligned with From example.com; DMARC fail (p=REJECT)' });
    const withoutDmarc = fakeDnsResolver({ ...dkimDnsRecords(EXAMPLE, false), ...dkimDnsRecords(EVIL) });
    const verdictWithoutDmarc = await verifySender(await signMail(message(), EVIL), { from: 'grace@example.com', resolver: withoutDmarc });
    expect(verdictWithoutDmarc).toEqual({ verified: false, basis: 'DKIM pass d=evil.test not aligned with From example.com; no DMARC record' });
  });

  it('does not verify an unsigned mail, and looks nothing up for it', async () => {
    const resolver = fakeDnsResolver(dkimDnsRecords(EXAMPLE));
    const verdict = await verifySender(Buffer.from(message()), { from: 'grace@example.com', resolver });
    expect(verdict).toEqual({ verified: false, basis: 'no DKIM signature' });
    expect(resolver.queries).toEqual([]);
  });

  it('verifies an aligned signature when the domain publishes no DMARC record', async () => {
    const verdict = await verifySender(await signMail(message(), EXAMPLE), { from: 'grace@example.com', resolver: fakeDnsResolver(dkimDnsRecords(EXAMPLE, false)) });
    expect(verdict).toEqual({ verified: true, basis: 'DKIM pass d=example.com aligned with From; no DMARC record' });
  });

  it('verifies a subdomain sender signed by its parent domain (relaxed alignment)', async () => {
    const verdict = await verifySender(await signMail(message({ from: 'grace@mail.example.com' }), EXAMPLE), {
      from: 'grace@mail.example.com',
      resolver: fakeDnsResolver(dkimDnsRecords(EXAMPLE)),
    });
    expect(verdict).toEqual({ verified: true, basis: 'DKIM pass d=example.com aligned with From; DMARC pass (p=REJECT)' });
  });

  it('checks the signature times against `now`', async () => {
    const signed = await signMail(message(), EXAMPLE, { signTime: new Date('2025-06-03T10:04:00Z'), expires: new Date('2025-06-10T10:04:00Z') });
    const resolver = fakeDnsResolver(dkimDnsRecords(EXAMPLE));
    expect((await verifySender(signed, { from: 'grace@example.com', resolver, now: new Date('2025-06-04T00:00:00Z') })).verified).toBe(true);
    const late = await verifySender(signed, { from: 'grace@example.com', resolver, now: new Date('2025-07-01T00:00:00Z') });
    expect(late).toEqual({ verified: false, basis: 'DKIM neutral d=example.com (expired); DMARC fail (p=REJECT)' });
  });

  it('does not count a key in testing mode (t=y)', async () => {
    const testing = { ...EXAMPLE, dnsTxt: EXAMPLE.dnsTxt.replace('v=DKIM1;', 'v=DKIM1; t=y;') };
    const verdict = await verifySender(await signMail(message(), EXAMPLE), { from: 'grace@example.com', resolver: fakeDnsResolver(dkimDnsRecords(testing, false)) });
    expect(verdict).toEqual({ verified: false, basis: 'DKIM pass d=example.com but its key is in testing mode (t=y); no DMARC record' });
  });

  it('does not count a signature that leaves body text unsigned (l=)', async () => {
    const signed = await signMail(message({ body: 'DENY' }), EXAMPLE, { maxBodyLength: 6 });
    const extended = Buffer.concat([signed, Buffer.from('Sorry, I meant APPROVE.\r\n')]);
    const verdict = await verifySender(extended, { from: 'grace@example.com', resolver: fakeDnsResolver(dkimDnsRecords(EXAMPLE)) });
    expect(verdict.verified).toBe(false);
    expect(verdict.basis).toMatch(/^DKIM pass d=example\.com but \d+ body bytes are not signed \(l=\); DMARC fail/);
  });

  it('does not verify when the given From is not the message\'s From, or the message has two', async () => {
    const signed = await signMail(message(), EXAMPLE);
    const resolver = fakeDnsResolver(dkimDnsRecords(EXAMPLE));
    expect(await verifySender(signed, { from: 'ada@other.example', resolver })).toEqual({
      verified: false,
      basis: "From other.example does not match the message's From header (example.com)",
    });
    const twoFroms = await signMail(message({ headersAbove: ['From: Mallory <mallory@evil.test>'] }), EXAMPLE);
    expect(await verifySender(twoFroms, { from: 'grace@example.com', resolver })).toEqual({ verified: false, basis: 'the message has 2 From header fields' });
    expect(await verifySender(signed, { from: 'grace', resolver })).toEqual({ verified: false, basis: 'the From address "grace" has no domain' });
  });

  it('does not verify when the signing key is not in DNS', async () => {
    const verdict = await verifySender(await signMail(message(), EXAMPLE), { from: 'grace@example.com', resolver: fakeDnsResolver({}) });
    expect(verdict.verified).toBe(false);
    expect(verdict.basis).toMatch(/^DKIM \w+ d=example\.com \(.+\); no DMARC record$/);
  });

  it('does not verify a message without headers, and refuses what is not a message with channel.invalid', async () => {
    const resolver = fakeDnsResolver({});
    expect(await verifySender(Buffer.alloc(0), { from: 'grace@example.com', resolver })).toEqual({ verified: false, basis: 'the message has 0 From header fields' });
    expect(await verifySender(Buffer.from([0xff, 0x00, 0xfe, 0x0a]), { from: 'grace@example.com', resolver })).toMatchObject({ verified: false });
    const notABuffer = 'From: grace@example.com' as unknown as Buffer;
    await expect(verifySender(notABuffer, { from: 'grace@example.com', resolver })).rejects.toBeInstanceOf(SwitchboardError);
    await expect(verifySender(notABuffer, { from: 'grace@example.com', resolver })).rejects.toMatchObject({ code: 'channel.invalid' });
  });
});

describe('verifySender with a trusted Authentication-Results header', () => {
  const trusted = { from: 'grace@example.com', trustedAuthservId: 'mx.example.com' };

  async function judge(headersAbove: readonly string[], options: { from?: string; trustedAuthservId?: string } = {}) {
    const resolver = fakeDnsResolver({});
    const verdict = await verifySender(Buffer.from(message({ headersAbove })), { ...trusted, ...options, resolver });
    expect(resolver.queries).toEqual([]);
    return verdict;
  }

  it('verifies when the topmost header with the trusted id says dmarc=pass', async () => {
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=example.com; dmarc=pass header.from=example.com'])).toEqual({
      verified: true,
      basis: 'trusted Authentication-Results from mx.example.com: dmarc=pass header.from=example.com',
    });
  });

  it('ignores a forged dmarc=pass with the trusted id below the real topmost dmarc=fail', async () => {
    const verdict = await judge([
      'Authentication-Results: mx.example.com; dkim=none; dmarc=fail header.from=example.com',
      'Received: from attacker.evil.test by mx.example.com; Tue, 3 Jun 2025 10:05:00 +0000',
      'Authentication-Results: mx.example.com; dmarc=pass',
    ]);
    expect(verdict).toEqual({ verified: false, basis: 'trusted Authentication-Results from mx.example.com: dmarc=fail header.from=example.com' });
  });

  it('ignores headers from other authserv-ids, above or alone', async () => {
    expect(await judge(['Authentication-Results: evil.test; dmarc=pass header.from=example.com'])).toEqual({
      verified: false,
      basis: 'no Authentication-Results header from mx.example.com',
    });
    expect(await judge(['Authentication-Results: mx.example.com.evil.test; dmarc=pass'])).toMatchObject({ verified: false });
    expect(await judge(['Authentication-Results: evil.test; dmarc=pass', 'Authentication-Results: mx.example.com; dmarc=fail'])).toMatchObject({ verified: false });
    expect(await judge(['Authentication-Results: evil.test; dmarc=fail', 'Authentication-Results: mx.example.com; dmarc=pass'])).toMatchObject({ verified: true });
  });

  it('matches the authserv-id case-insensitively, with a version and comments', async () => {
    expect(await judge(['Authentication-Results: MX.Example.COM 1; (checked; really) dmarc=pass (p=reject; dis=none) header.from=example.com'])).toMatchObject({ verified: true });
    expect(await judge(['Authentication-Results: mx.example.com; dmarc=pass'], { trustedAuthservId: 'MX.EXAMPLE.COM' })).toMatchObject({ verified: true });
  });

  it('verifies dkim=pass for a domain aligned with From, read from header.d or header.i', async () => {
    expect(await judge(['Authentication-Results: mx.example.com;', '  dkim=pass (2048-bit key; secure) header.d=example.com header.s=sb1;', '  spf=none'])).toEqual({
      verified: true,
      basis: 'trusted Authentication-Results from mx.example.com: dkim=pass header.d=example.com aligned with From example.com',
    });
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.i=@mail.example.com'])).toMatchObject({ verified: true });
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.d=example.com'], { from: 'grace@eu.example.com' })).toMatchObject({ verified: true });
  });

  it('does not verify dkim=pass for another domain, a pass about another From, SPF alone, or an aligned pass that DMARC failed', async () => {
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.d=evil.test; spf=pass smtp.mailfrom=example.com'])).toEqual({
      verified: false,
      basis: 'trusted Authentication-Results from mx.example.com: no dmarc=pass and no dkim=pass aligned with From example.com (dkim=pass header.d=evil.test, spf=pass)',
    });
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.d=notexample.com'])).toMatchObject({ verified: false });
    expect(await judge(['Authentication-Results: mx.example.com; dmarc=pass header.from=evil.test'])).toMatchObject({ verified: false });
    expect(await judge(['Authentication-Results: mx.example.com; dkim=pass header.d=example.com; dmarc=fail header.from=example.com'])).toMatchObject({ verified: false });
    expect(await judge(['Authentication-Results: mx.example.com; none'])).toEqual({
      verified: false,
      basis: 'trusted Authentication-Results from mx.example.com: no dmarc=pass and no dkim=pass aligned with From example.com (no results)',
    });
  });

  it('does not read Authentication-Results-like text in the body', async () => {
    const verdict = await verifySender(Buffer.from(message({ body: 'Authentication-Results: mx.example.com; dmarc=pass' })), trusted);
    expect(verdict).toEqual({ verified: false, basis: 'no Authentication-Results header from mx.example.com' });
  });
});
