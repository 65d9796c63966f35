/**
 * The web transport as any worker's sender sees it: only the process holding the session's lease
 * can send, so a message is pushed on the outbox in Redis and the sender waits on its own reply
 * key for the holder's answer (`web-outbox.ts`). No answer in time means the session is not linked
 * or not ready (or no process holds it): a retryable failure.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DeliveryError } from '../../../queues/delivery-error.ts';
import type { WhatsAppTransport } from '../transport.ts';
import { parseOutboxReply, type OutboxRequest } from './outbox-wire.ts';
import { webKeys } from './web-keys.ts';

/** Options of {@link createWebTransport}. */
export interface WebTransportOptions {
  /** The command connection; each send waits on a blocking connection made with `duplicate()`. Never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  /** How long to wait for the session's answer, in ms. Default 30000. */
  readonly timeoutMs?: number;
}

/** How long the outbound queue should wait before the next try when the session did not answer, in ms. */
const NOT_READY_RETRY_MS = 15_000;

async function blockingConnection(redis: Redis): Promise<Redis> {
  const connection = redis.duplicate({ lazyConnect: true });
  await connection.connect();
  return connection;
}

/**
 * Creates the transport (`via: 'web'`).
 *
 * @example
 * const sender = createWhatsAppSender({ transport: createWebTransport({ redis, prefix }), windows, templates, clock });
 */
export function createWebTransport(options: WebTransportOptions): WhatsAppTransport {
  const { redis } = options;
  const keys = webKeys(options.prefix);
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    via: 'web',
    async send(message, idempotencyKey) {
      if (message.kind === 'buttons' || message.kind === 'template') {
        throw new DeliveryError(`WhatsApp Web cannot send ${message.kind}; they are for WHATSAPP_MODE=cloud.`, { permanent: true, providerCode: 'unsupported-in-web-mode' });
      }
      const request: OutboxRequest = { requestId: randomUUID(), idempotencyKey, message, deadline: Date.now() + timeoutMs };
      const json = JSON.stringify(request);
      const connection = await blockingConnection(redis);
      let popped: [string, string] | null;
      try {
        await redis.lpush(keys.outbox, json);
        popped = await connection.blpop(keys.reply(request.requestId), timeoutMs / 1000);
      } finally {
        connection.disconnect();
      }
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
  };
}
