/**
 * A message's echo lands in its conversation's stream before anything its turn delivers.
 *
 * The message route echoes a message once its accept (and, in a process that runs turns, its
 * turn's lock claim and begin) were answered. Those answers arrive together, and the turn may
 * reach its first delivery, a few steps later in the same turn of the event loop, before the
 * route sends the echo. The route notes the echo it owes a conversation before it enqueues, and
 * the sender holds a delivery to that conversation until the echo was sent. Both go over one
 * Redis connection, so "sent" is enough: Redis stores them in that order. Only this process's
 * messages and turns are ordered; a turn run by another process starts a queue job later.
 */

/** The echoes a process owes, per conversation. */
export interface EchoOrder {
  /**
   * Notes an echo owed to `conversationId`. Call the returned function once the echo was sent,
   * or will not be (the enqueue failed); calling it again does nothing.
   */
  owe(conversationId: string): () => void;
  /** Resolves once every echo owed to `conversationId` was sent; `undefined` when none is owed. */
  sent(conversationId: string): Promise<void> | undefined;
}

interface Owed {
  count: number;
  readonly sent: Promise<void>;
  readonly resolve: () => void;
}

/** Creates an empty {@link EchoOrder}. */
export function createEchoOrder(): EchoOrder {
  const owed = new Map<string, Owed>();
  return {
    owe(conversationId) {
      let entry = owed.get(conversationId);
      if (entry === undefined) {
        const { promise, resolve } = Promise.withResolvers<undefined>();
        entry = { count: 0, sent: promise, resolve: () => { resolve(undefined); } };
        owed.set(conversationId, entry);
      }
      entry.count += 1;
      const counted = entry;
      let paid = false;
      return () => {
        if (paid) return;
        paid = true;
        counted.count -= 1;
        if (counted.count > 0) return;
        owed.delete(conversationId);
        counted.resolve();
      };
    },
    sent(conversationId) {
      return owed.get(conversationId)?.sent;
    },
  };
}
