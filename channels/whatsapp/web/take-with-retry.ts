/**
 * Hands an event to the intake, trying again with backoff while the intake rejects: WhatsApp Web
 * delivers each message once, so a message whose enqueue failed is not offered again (until the
 * next catch-up, if its chat is still unread).
 */
import type { Logger } from 'pino';
import { reconnectDelayMs, type ReconnectBackoff } from '../../../queues/redis-connections.ts';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { pause, systemClock } from '../../kit/lease/lease-clock.ts';
import type { WhatsAppEvent, WhatsAppIntake } from '../whatsapp-event.ts';

/** How often and how patiently to try. */
export interface TakeRetry extends ReconnectBackoff {
  /** Tries in all. Default 5. */
  readonly attempts?: number;
}

/** Default delays: 500 ms doubling up to 8000 ms (about 15 s over five tries). */
const DEFAULTS = { attempts: 5, baseDelayMs: 500, maxDelayMs: 8000 };

/**
 * Takes `event`; resolves `true` once taken (or found a duplicate), `false` after the last failed
 * try or when `signal` aborts. An event the intake cannot read (`channel.invalid`) is not retried.
 */
export async function takeWithRetry(
  intake: WhatsAppIntake,
  event: WhatsAppEvent,
  options: { readonly retry?: TakeRetry; readonly signal: AbortSignal; readonly logger: Pick<Logger, 'warn' | 'error'> },
): Promise<boolean> {
  const retry = { ...DEFAULTS, ...options.retry };
  for (let attempt = 1; !options.signal.aborted; attempt += 1) {
    try {
      await intake.take(event);
      return true;
    } catch (error) {
      const unreadable = error instanceof SwitchboardError && error.code === 'channel.invalid';
      const log = { err: error, messageId: event.messageId, attempt };
      if (unreadable || attempt >= retry.attempts) {
        options.logger.error(log, 'whatsapp: message not enqueued; given up');
        return false;
      }
      options.logger.warn(log, 'whatsapp: message not enqueued; trying again');
      await pause(systemClock, reconnectDelayMs(attempt, retry), options.signal);
    }
  }
  return false;
}
