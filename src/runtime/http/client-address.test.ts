import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createProxyTrust, isLoopbackAddress, requestOrigin } from './client-address.ts';
import { isLoopbackRequest } from './operator-access.ts';

/** A request as far as these functions read it: the socket's peer and the headers. */
function request(remoteAddress: string | undefined, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
}

const trustNobody = createProxyTrust([]);
const trustLocalProxy = createProxyTrust([
  { address: '10.0.0.0', prefixLength: 8, family: 'ipv4' },
  { address: 'fd00::', prefixLength: 8, family: 'ipv6' },
]);

describe('the client address', () => {
  it('is the peer when it is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(requestOrigin(request('203.0.113.9'), trustNobody)).toEqual({ client: '203.0.113.9', via: 'direct' });
    expect(requestOrigin(request('203.0.113.9', { 'x-forwarded-for': '127.0.0.1' }), trustLocalProxy)).toEqual({ client: '203.0.113.9', via: 'other-proxy' });
    expect(requestOrigin(request('::ffff:127.0.0.1', { forwarded: 'for=1.2.3.4' }), trustNobody)).toEqual({ client: '127.0.0.1', via: 'other-proxy' });
  });

  it('is the rightmost untrusted X-Forwarded-For entry behind a trusted proxy', () => {
    expect(requestOrigin(request('10.1.2.3', { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' }), trustLocalProxy)).toEqual({ client: '203.0.113.9', via: 'trusted-proxy' });
    expect(requestOrigin(request('::ffff:10.1.2.3', { 'x-forwarded-for': '198.51.100.7, 10.9.9.9' }), trustLocalProxy)).toEqual({ client: '198.51.100.7', via: 'trusted-proxy' });
    expect(requestOrigin(request('fd00::5', { 'x-forwarded-for': '2001:db8::1' }), trustLocalProxy)).toEqual({ client: '2001:db8::1', via: 'trusted-proxy' });
    // Only trusted hops: the leftmost is the client.
    expect(requestOrigin(request('10.1.2.3', { 'x-forwarded-for': '10.0.0.9,10.0.0.8' }), trustLocalProxy)).toEqual({ client: '10.0.0.9', via: 'trusted-proxy' });
  });

  it('is unknown behind a trusted proxy that names nobody or something unreadable', () => {
    expect(requestOrigin(request('10.1.2.3'), trustLocalProxy)).toEqual({ client: undefined, via: 'trusted-proxy' });
    expect(requestOrigin(request('10.1.2.3', { 'x-forwarded-for': '203.0.113.9:4711' }), trustLocalProxy)).toEqual({ client: undefined, via: 'trusted-proxy' });
    expect(requestOrigin(request('10.1.2.3', { 'x-forwarded-for': '127.0.0.1, unknown' }), trustLocalProxy)).toEqual({ client: undefined, via: 'trusted-proxy' });
  });

  it('knows loopback addresses in every form', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '::', 'localhost', '', undefined]) expect(isLoopbackAddress(address), String(address)).toBe(false);
  });
});

describe('a loopback request', () => {
  const host = { host: '127.0.0.1:3000' };

  it('comes from a loopback peer, addressed to a loopback host, with no proxy headers', () => {
    for (const name of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST', 'app.localhost:3000', '[::1]:3000']) {
      expect(isLoopbackRequest(request('::1', { host: name })), name).toBe(true);
    }
    expect(isLoopbackRequest(request('::1', { host: 'example.com' }))).toBe(false);
    expect(isLoopbackRequest(request('::1', {}))).toBe(false);
    expect(isLoopbackRequest(request('203.0.113.9', host))).toBe(false);
    expect(isLoopbackRequest(request('127.0.0.1', { ...host, 'x-forwarded-for': '127.0.0.1' }))).toBe(false);
  });

  it('through a trusted proxy, is one whose real client is loopback', () => {
    const trust = [{ address: '127.0.0.1', prefixLength: 32, family: 'ipv4' as const }];
    expect(isLoopbackRequest(request('127.0.0.1', { ...host, 'x-forwarded-for': '127.0.0.1' }), trust)).toBe(true);
    expect(isLoopbackRequest(request('127.0.0.1', { ...host, 'x-forwarded-for': '203.0.113.9' }), trust)).toBe(false);
    expect(isLoopbackRequest(request('127.0.0.1', host), trust)).toBe(false);
  });
});
