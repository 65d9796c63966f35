import { describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../queues/outbound-types.ts';
import { prefetchedRead } from './prefetched-read.ts';

const delivery = (address: string): OutboundDelivery => ({ channel: 'sms', destination: { channel: 'sms', address }, idempotencyKey: `k-${address}`, payload: {} });

/** A read that counts its calls and answers with the address it was asked about, or fails for `bad`. */
function counting(): { read: (d: OutboundDelivery) => Promise<string>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    read: (d) => {
      calls.push(d.destination.address);
      return d.destination.address === 'bad' ? Promise.reject(new Error('READONLY')) : Promise.resolve(d.destination.address);
    },
  };
}

describe('a prefetched read', () => {
  it('reads when started and gives that read to the send, once; a later take reads again', async () => {
    const { read, calls } = counting();
    const reads = prefetchedRead(read);
    const one = delivery('+15550100');
    reads.start(one);
    expect(calls).toEqual(['+15550100']);
    expect(await reads.take(one)).toBe('+15550100');
    expect(calls).toHaveLength(1);
    expect(await reads.take(one)).toBe('+15550100');
    expect(calls).toHaveLength(2);
  });

  it('reads on demand for a delivery never started, and keeps each delivery\'s read apart', async () => {
    const { read, calls } = counting();
    const reads = prefetchedRead(read);
    const started = delivery('+15550100');
    reads.start(started);
    expect(await reads.take(delivery('+15550199'))).toBe('+15550199');
    expect(await reads.take(started)).toBe('+15550100');
    expect(calls).toEqual(['+15550100', '+15550199']);
  });

  it('reads again for a send that comes later than the read\'s age allows (the claim asked the provider first)', async () => {
    const { read, calls } = counting();
    let clock = 0;
    const reads = prefetchedRead(read, { maxAgeMs: 1000, now: () => clock });
    const fresh = delivery('+15550100');
    reads.start(fresh);
    clock = 1000;
    expect(await reads.take(fresh)).toBe('+15550100');
    expect(calls).toHaveLength(1);
    const late = delivery('+15550101');
    reads.start(late);
    clock = 2001;
    expect(await reads.take(late)).toBe('+15550101');
    expect(calls).toEqual(['+15550100', '+15550101', '+15550101']);
  });

  it('gives a failed read\'s error to the send that takes it, and leaves no unhandled rejection when none does', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => { unhandled.push(reason); };
    process.on('unhandledRejection', listener);
    try {
      const reads = prefetchedRead(counting().read);
      const taken = delivery('bad');
      reads.start(taken);
      reads.start(delivery('bad'));
      await expect(reads.take(taken)).rejects.toThrow('READONLY');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
