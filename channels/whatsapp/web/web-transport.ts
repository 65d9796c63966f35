/**
 * The web transport as any worker's sender sees it: only the process holding the session's lease
 * can send, so a message is pushed on the outbox in Redis and the sender waits on its own reply
 * key for the holder's answer (`web-outbox.ts`). No answer in time means the session is not linked
 * or not ready (or no process holds it): a retryable failure.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { duplicateRedis } from '../../../src/runtime/redis/redis-client.ts';
import type { WhatsAppTransport } from '../transport.ts';
import { createWebFindSent } from './find-sent.ts';
import { parseOutboxReply, type OutboxRequest } from './outbox-wire.ts';
import { webKeys } from './web-keys.ts';

/** Options of {@link createWebTransport}. */
export interface WebTransportOptions {
  /** The command connection; sends wait on blocking connections made with `duplicate()`. Never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  /** How long to wait for the session's answer, in ms. Default 30000. */
  readonly timeoutMs?: number;
}

/** The web transport, and how to close the blocking connections it keeps. */
export interface WebTransport extends WhatsAppTransport {
  /** Closes the idle blocking connections; one still waiting closes when its send ends. */
  close(): Promise<void>;
}

/** How long the outbound queue should wait before the next try when the session did not answer, in ms. */
const NOT_READY_RETRY_MS = 15_000;

/**
 * Blocking connections for `BLPOP`, one per send in flight, kept idle between sends: `BLPOP`
 * holds its connection, so two sends cannot share one at once, but one that answered (or timed
 * out) is free for the next. A connection whose command failed is dropped.
 */
function createBlockingPool(redis: Redis): { use<T>(work: (connection: Redis) => Promise<T>): Promise<T>; close(): void } {
  const idle: Redis[] = [];
  let closed = false;
  const take = async (): Promise<Redis> => {
    const kept = idle.pop();
    if (kept !== undefined) return kept;
    const connection = duplicateRedis(redis, { lazyConnect: true });
    await connection.connect();
    return connection;
  };
  return {
    async use(work) {
      const connection = await take();
      let reusable = false;
      try {
        const result = await work(connection);
        reusable = true;
        return result;
      } finally {
        if (reusable && !closed && connection.status === 'ready') idle.push(connection);
        else connection.disconnect();
      }
    },
    close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.disconnect();
    },
  };
}

/**
 * Creates the transport (`via: 'web'`).
 *
 * @example
 * const sender = createWhatsAppSender({ transport: createWebTransport({ redis, prefix }), windows, templates, clock });
 */
export function createWebTransport(options: WebTransportOptions): WebTransport {
  const { redis } = options;
  const keys = webKeys(options.prefix);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const blocking = createBlockingPool(redis);
  return {
    via: 'web',
    findSent: createWebFindSent({ redis, prefix: options.prefix, timeoutMs }),
    async send(message, idempotencyKey) {
      if (message.kind === 'buttons' || message.kind === 'template') {
        throw new DeliveryError(`WhatsApp Web cannot send ${message.kind}; they are for WHATSAPP_MODE=cloud.`, { permanent: true, providerCode: 'unsupported-in-web-mode' });
      }
      const request: OutboxRequest = { requestId: randomUUID(), idempotencyKey, message, deadline: Date.now() + timeoutMs };
      const json = JSON.stringify(request);
      const popped = await blocking.use(async (connection) => {
        await redis.lpush(keys.outbox, json);
        return await connection.blpop(keys.reply(request.requestId), timeoutMs / 1000);
      });
      if (popped === null) {
        await redis.lrem(keys.outbox, 1, json).catch(() => undefined);
        throw new DeliveryError(`The WhatsApp Web session is not linked or not ready: no answer within ${String(timeoutMs / 1000)} s. See /admin/whatsapp.`, {
          retryAfterMs: NOT_READY_RETRY_MS,
          providerCode: 'session-not-ready',
        });
      }
      const reply = parseOutboxReply(popped[1]);
      if (reply === undefined) throw new DeliveryError('The WhatsApp Web session answered something unreadable.', { providerCode: 'bad-reply' });
      if (reply.ok) return { id: reply.id };
      throw new DeliveryError(reply.message, { permanent: reply.permanent, ...(reply.providerCode === undefined ? {} : { providerCode: reply.providerCode }) });
    },
    close() {
      blocking.close();
      return Promise.resolve();
    },
  };
}
