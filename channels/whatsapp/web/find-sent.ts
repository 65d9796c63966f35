/**
 * Finds a WhatsApp Web send whose outcome was lost. The session's holder records
 * `sent:<idempotency key>` (the message id) before it answers a send request (`web-outbox.ts`),
 * and drops requests whose sender stopped waiting, so: a record means sent; no record, once the
 * request's deadline and a margin have passed, means not sent. The one gap is a holder that dies
 * between the session's send and that record: the message then goes out again.
 */
import type { Redis } from 'ioredis';
import type { SendIntent, SentLookup } from '../../../queues/outbound-types.ts';
import { absentOnceSettled } from '../../../queues/sent-lookup.ts';
import { webKeys } from './web-keys.ts';

/** How long after its deadline a request may still be in the holder's hands, in ms (a media upload). */
const HOLDER_MARGIN_MS = 30_000;

/** Options of {@link createWebFindSent}. */
export interface WebFindSentOptions {
  readonly redis: Pick<Redis, 'get'>;
  readonly prefix: string;
  /** How long a sender waits for the holder (the request's deadline), in ms, as the transport's `timeoutMs`. */
  readonly timeoutMs: number;
}

/**
 * Creates the web transport's `findSent`; see the file's comment.
 *
 * @example
 * const findSent = createWebFindSent({ redis, prefix, timeoutMs: 30_000 });
 * const found = await findSent(delivery.idempotencyKey, { since }); // { kind: 'sent', … } once the holder recorded it
 */
export function createWebFindSent(options: WebFindSentOptions): (idempotencyKey: string, intent: SendIntent) => Promise<SentLookup> {
  const keys = webKeys(options.prefix);
  return async (idempotencyKey, intent) => {
    const id = await options.redis.get(keys.sent(idempotencyKey));
    if (id !== null) return { kind: 'sent', receipt: { providerMessageId: id, details: { via: 'web' } } };
    return absentOnceSettled(intent, options.timeoutMs + HOLDER_MARGIN_MS);
  };
}
