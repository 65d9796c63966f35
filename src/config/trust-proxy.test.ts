import { describe, expect, it } from 'vitest';
import { loadEnv } from './env.ts';

const defaults = { appDir: process.cwd() };

describe('TRUST_PROXY', () => {
  it('is empty when unset: no proxy is trusted', () => {
    expect(loadEnv({}, defaults).trustProxy).toEqual([]);
  });

  it('reads addresses, CIDR ranges and "loopback", comma-separated', () => {
    expect(loadEnv({ TRUST_PROXY: ' 10.0.0.1, 172.16.0.0/12 ,fd00::/8,, LOOPBACK, ::1 ' }, defaults).trustProxy).toEqual([
      { address: '10.0.0.1', prefixLength: 32, family: 'ipv4' },
      { address: '172.16.0.0', prefixLength: 12, family: 'ipv4' },
      { address: 'fd00::', prefixLength: 8, family: 'ipv6' },
      { address: '127.0.0.0', prefixLength: 8, family: 'ipv4' },
      { address: '::1', prefixLength: 128, family: 'ipv6' },
      { address: '::1', prefixLength: 128, family: 'ipv6' },
    ]);
  });

  it('refuses a bad entry with an error naming the variable and every bad entry', () => {
    for (const value of ['nginx', '10.0.0.0/33', '10.0.0.0/-1', '::/129', '10.0.0.0/', '300.1.1.1', '10.0.0.1:8080']) {
      expect(() => loadEnv({ TRUST_PROXY: value }, defaults), value).toThrow(/TRUST_PROXY must list IP addresses/);
    }
    expect(() => loadEnv({ TRUST_PROXY: 'proxy-a, 10.0.0.1, 1.2.3.4/40' }, defaults)).toThrow(/"proxy-a" is not an IP address.*"1\.2\.3\.4\/40" has a prefix length other than 0 to 32/);
  });
});
