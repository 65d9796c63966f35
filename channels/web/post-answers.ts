/**
 * What the web chat's POST routes (messages, actions) answer alike: a 400 naming the field, and a
 * 503 with `Retry-After` when the injection could not be enqueued.
 */
import type { ServerResponse } from 'node:http';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { asRequestError, sendJson } from '../../src/runtime/http/router.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import type { ChannelContext } from '../channel.ts';
import { REDIS_RETRY_AFTER_SECONDS } from '../../src/runtime/redis/redis-unavailable.ts';

/** The channel context's enqueue, as the web routes call it (see `ChannelContext.enqueue`). */
export type WebEnqueue = ChannelContext['enqueue'];

/** The 400 of a request field that breaks its rule: `http.bad_request` with `details.field`. */
export function badRequest(message: string, field: string): SwitchboardError {
  return new SwitchboardError('http.bad_request', message, { details: { field } });
}

/**
 * Enqueues `injection`; when that fails, answers 503 with `Retry-After` (the failure's code,
 * `retryMessage`, `details.retryable: true`) and resolves `undefined`: the caller answers nothing
 * more. Sending the same id again is safe either way, whether Redis went away before the injection
 * was stored or between storing it and asking for its turn (see docs/resilience.md, "When Redis
 * goes away").
 */
export async function enqueueOrRetryLater(
  res: ServerResponse,
  enqueue: (injection: Injection) => ReturnType<WebEnqueue>,
  injection: Injection,
  retryMessage: string,
): Promise<Awaited<ReturnType<WebEnqueue>> | undefined> {
  try {
    return await enqueue(injection);
  } catch (thrown) {
    const error = asRequestError(thrown);
    res.setHeader('retry-after', String(REDIS_RETRY_AFTER_SECONDS));
    sendJson(res, 503, { error: { code: error.code, message: retryMessage, details: { retryable: true } } });
    return undefined;
  }
}
