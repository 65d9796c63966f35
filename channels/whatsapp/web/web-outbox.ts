/**
 * The session holder's side of the outbound relay: pops send requests from the outbox (pushed by
 * any worker's sender through `web-transport.ts`), sends each through the session, records
 * `sent:<idempotency key>` before answering, and answers a key already sent from that record
 * without sending again. Runs only while the session is ready; a request whose sender stopped
 * waiting is dropped unsent (the outbound queue retries it).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { duplicateRedis } from '../../../src/runtime/redis/redis-client.ts';
import { pause, systemClock } from '../../kit/lease/lease-clock.ts';
import type { OutboxReply, OutboxRequest } from './outbox-wire.ts';
import { parseOutboxRequest } from './outbox-wire.ts';
import { sendWebMessage, type SendWebContext } from './send-web-message.ts';
import { webKeys } from './web-keys.ts';

/** Options of {@link startWebOutbox}. */
export interface WebOutboxOptions extends SendWebContext {
  /** The command connection; a blocking connection is made from it with `duplicate()`. Never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  /** Aborted when the lease is lost: nothing more is sent. */
  readonly signal: AbortSignal;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** How long the record of a sent delivery is kept, in ms. Default 86400000 (1 day). */
  readonly sentTtlMs?: number;
  /** How long an answer waits for its sender, in ms. Default 60000. */
  readonly replyTtlMs?: number;
  /** Now, in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** A running outbox consumer. */
export interface RunningOutbox {
  /** Stops taking requests (one being sent finishes first) and closes the blocking connection. */
  stop(): Promise<void>;
}

/** Seconds one `BRPOP` waits before the loop looks at its stop flag again. */
const POP_SECONDS = 1;
/** Pause after a failed pop or answer (Redis unreachable), in ms. */
const RETRY_AFTER_ERROR_MS = 1000;

function replyOf(error: unknown): OutboxReply {
  if (error instanceof DeliveryError) {
    return { ok: false, permanent: error.permanent, message: error.message, ...(error.providerCode === undefined ? {} : { providerCode: error.providerCode }) };
  }
  return { ok: false, permanent: false, message: `WhatsApp Web did not send it: ${error instanceof Error ? error.message : String(error)}` };
}

/** Starts consuming the outbox. */
export function startWebOutbox(options: WebOutboxOptions): RunningOutbox {
  const { redis, logger } = options;
  const keys = webKeys(options.prefix);
  const now = options.now ?? Date.now;
  const sentTtlMs = options.sentTtlMs ?? 86_400_000;
  const replyTtlMs = options.replyTtlMs ?? 60_000;
  const blocking = duplicateRedis(redis, { lazyConnect: true });
  const stopping = new AbortController();
  const stopped = (): boolean => stopping.signal.aborted;

  const answer = async (request: OutboxRequest, reply: OutboxReply): Promise<void> => {
    const key = keys.reply(request.requestId);
    await redis.multi().lpush(key, JSON.stringify(reply)).pexpire(key, replyTtlMs).exec();
  };

  const send = async (request: OutboxRequest): Promise<OutboxReply> => {
    const already = await redis.get(keys.sent(request.idempotencyKey));
    if (already !== null) return { ok: true, id: already };
    if (options.signal.aborted) return { ok: false, permanent: false, message: 'The WhatsApp Web session moved to another process; try again.' };
    try {
      const { id } = await sendWebMessage(request.message, options);
      await redis.set(keys.sent(request.idempotencyKey), id, 'PX', sentTtlMs).catch((error: unknown) => {
        logger.warn({ err: error, idempotencyKey: request.idempotencyKey }, 'whatsapp: sent, but the record of it was not kept');
      });
      return { ok: true, id };
    } catch (error) {
      return replyOf(error);
    }
  };

  const handle = async (json: string): Promise<void> => {
    const request = parseOutboxRequest(json);
    if (request === undefined) {
      logger.warn({ request: json.slice(0, 200) }, 'whatsapp: malformed outbox request dropped');
      return;
    }
    if (now() > request.deadline) {
      logger.debug({ idempotencyKey: request.idempotencyKey }, 'whatsapp: outbox request expired before it was read; dropped unsent');
      return;
    }
    const reply = await send(request);
    logger.info({ idempotencyKey: request.idempotencyKey, ok: reply.ok, ...(reply.ok ? { id: reply.id } : { error: reply.message }) }, 'whatsapp: outbox request handled');
    await answer(request, reply);
  };

  const loop = (async () => {
    await blocking.connect();
    while (!stopped() && !options.signal.aborted) {
      try {
        const popped = await blocking.brpop(keys.outbox, POP_SECONDS);
        if (popped !== null) await handle(popped[1]);
      } catch (error) {
        if (stopped()) return;
        logger.warn({ err: error }, 'whatsapp: outbox request failed; going on');
        await pause(systemClock, RETRY_AFTER_ERROR_MS, stopping.signal);
      }
    }
  })().catch((error: unknown) => {
    if (!stopped()) logger.warn({ err: error }, 'whatsapp: outbox consumer did not start');
  });

  return {
    async stop() {
      stopping.abort();
      blocking.disconnect();
      await loop;
    },
  };
}
