/**
 * A sender's read made ahead of its send: the read starts when the outbound step claims the
 * delivery (`ChannelSender.prefetch`), in the same tick, so its command leaves in the claim's socket
 * write and costs no round trip of its own; `send` then takes what it read. What it read answers
 * only for a send that follows its claim closely: a send that came later (the claim found an
 * earlier send's outcome unknown and asked the provider first) reads again, so an opt-out or a
 * closed window noted meanwhile is seen.
 */
import type { OutboundDelivery } from '../../queues/outbound-types.ts';

/** One read per delivery, started early or made on demand. */
export interface PrefetchedRead<T> {
  /** Starts the read for `delivery` (for `ChannelSender.prefetch`). */
  readonly start: (delivery: OutboundDelivery) => void;
  /**
   * What the read for `delivery` found: the one {@link PrefetchedRead.start} began, taken once and
   * only while fresh, or a read made now otherwise (a send never claimed inline, a second send, a
   * send long after its claim).
   */
  readonly take: (delivery: OutboundDelivery) => Promise<T>;
}

/** Options of {@link prefetchedRead}. */
export interface PrefetchedReadOptions {
  /** How long after it started a read still answers for the send, in ms. Default 1000. */
  readonly maxAgeMs?: number;
  /** The clock, in ms. Default `performance.now`. */
  readonly now?: () => number;
}

/** A started read and when it started. */
interface Started<T> {
  readonly reading: Promise<T>;
  readonly at: number;
}

/**
 * A {@link PrefetchedRead} of `read`. A started read is kept by its delivery object, so it goes with
 * the delivery when the claim refused it and no send takes it; its failure is seen by the send that
 * takes it, and by no one otherwise (never an unhandled rejection).
 */
export function prefetchedRead<T>(read: (delivery: OutboundDelivery) => Promise<T>, options: PrefetchedReadOptions = {}): PrefetchedRead<T> {
  const maxAgeMs = options.maxAgeMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  const started = new WeakMap<OutboundDelivery, Started<T>>();
  return {
    start: (delivery) => {
      const reading = read(delivery);
      reading.catch(() => undefined);
      started.set(delivery, { reading, at: now() });
    },
    take: (delivery) => {
      const early = started.get(delivery);
      started.delete(delivery);
      return early !== undefined && now() - early.at <= maxAgeMs ? early.reading : read(delivery);
    },
  };
}
