import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inboundJobId, outboundJobId, sha256Hex, turnJobId } from './job-ids.ts';

describe('job ids', () => {
  it('are a prefix plus the hex SHA-256 of the key', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(inboundJobId('abc')).toBe(`in-${sha256Hex('abc')}`);
    expect(turnJobId('abc')).toBe(`turn-${sha256Hex('abc')}`);
    expect(outboundJobId('abc')).toBe(`out-${sha256Hex('abc')}`);
  });

  it('never contain ":" and are never all digits, whatever the key', () => {
    for (const key of ['web:123', '12345', ':', '', 'email:7-42', '💬 ünïcode']) {
      for (const id of [inboundJobId(key), turnJobId(key), outboundJobId(key)]) {
        expect(id).not.toContain(':');
        expect(id).not.toMatch(/^\d+$/);
      }
    }
  });

  it('give the same digest for a key hashed again after hundreds of others', () => {
    const first = Array.from({ length: 600 }, (_, index) => sha256Hex(`key-${String(index)}`));
    const again = Array.from({ length: 600 }, (_, index) => sha256Hex(`key-${String(index)}`));
    expect(again).toEqual(first);
    expect(new Set(first).size).toBe(600);
    expect(sha256Hex('key-0')).toBe(createHash('sha256').update('key-0').digest('hex'));
  });

  it('are stable and tell keys apart', () => {
    expect(inboundJobId('web:m-1')).toBe(inboundJobId('web:m-1'));
    expect(inboundJobId('web:m-1')).not.toBe(inboundJobId('web:m-2'));
  });
});
