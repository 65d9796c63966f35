/**
 * A sender's read made ahead of its send: the read starts when the outbound step claims the
 * delivery (`ChannelSender.prefetch`), in the same tick, so its command leaves in the claim's socket
 * write and costs no round trip of its own; `send` then takes what it read.
 */
import type { OutboundDelivery } from '../../queues/outbound-types.ts';

/** One read per delivery, started early or made on demand. */
export interface PrefetchedRead<T> {
  /** Starts the read for `delivery` (for `ChannelSender.prefetch`). */
  readonly start: (delivery: OutboundDelivery) => void;
  /**
   * What the read for `delivery` found: the one {@link PrefetchedRead.start} began, taken once, or
   * a read made now when none was started (a send never claimed inline, a second send).
   */
  readonly take: (delivery: OutboundDelivery) => Promise<T>;
}

/**
 * A {@link PrefetchedRead} of `read`. A started read is kept by its delivery object, so it goes with
 * the delivery when the claim refused it and no send takes it; its failure is seen by the send that
 * takes it, and by no one otherwise (never an unhandled rejection).
 */
export function prefetchedRead<T>(read: (delivery: OutboundDelivery) => Promise<T>): PrefetchedRead<T> {
  const started = new WeakMap<OutboundDelivery, Promise<T>>();
  return {
    start: (delivery) => {
      const reading = read(delivery);
      reading.catch(() => undefined);
      started.set(delivery, reading);
    },
    take: (delivery) => {
      const reading = started.get(delivery);
      if (reading === undefined) return read(delivery);
      started.delete(delivery);
      return reading;
    },
  };
}
