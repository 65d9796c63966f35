/**
 * One client's life, from `initialize()` to its end: its events handed to hooks one at a time, in
 * the order they came (a QR code, the link, `ready`, each message), until the session drops, is
 * refused, fails to start, or is stopped. The client is destroyed before this returns.
 */
import type { Logger } from 'pino';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { WebMessage, WhatsAppWebClient } from './web-client.ts';

/** What the session's events do; each runs after the previous one settled. */
export interface WebClientHooks {
  onQr(qr: string): Promise<void>;
  onAuthenticated(): Promise<void>;
  onReady(): Promise<void>;
  onMessage(message: WebMessage): Promise<void>;
}

/** How a client's life ended. */
export type WebClientEnding =
  | { readonly kind: 'stopped' }
  /** `reason` is `LOGOUT` when the phone removed the linked device. */
  | { readonly kind: 'disconnected'; readonly reason: string }
  | { readonly kind: 'auth-failed'; readonly detail: string }
  /** The client could not start, or a hook found the lease lost (`lease.stale_fence`). */
  | { readonly kind: 'failed'; readonly error: unknown };

/** Whether `error` says this process no longer holds the session's lease. */
export function isStaleFence(error: unknown): boolean {
  return error instanceof SwitchboardError && (error.code === 'lease.stale_fence' || error.code === 'lease.lost');
}

/**
 * Runs `client` until it ends; resolves with how it ended (never rejects).
 *
 * @param onEnd - Called once the client ended, before it is destroyed (stop what used it).
 */
export async function runWebClient(
  client: WhatsAppWebClient,
  hooks: WebClientHooks,
  options: { readonly signal: AbortSignal; readonly logger: Pick<Logger, 'warn'>; readonly onEnd: () => Promise<void> },
): Promise<WebClientEnding> {
  let finish: (ending: WebClientEnding) => void = () => undefined;
  let over = false;
  const ended = new Promise<WebClientEnding>((resolve) => {
    finish = (ending) => {
      if (over) return;
      over = true;
      resolve(ending);
    };
  });
  let chain = Promise.resolve();
  const serial = (what: string, task: () => Promise<void>): void => {
    chain = chain.then(async () => {
      if (over) return;
      try {
        await task();
      } catch (error) {
        if (isStaleFence(error)) finish({ kind: 'failed', error });
        else options.logger.warn({ err: error }, `whatsapp: ${what} not handled`);
      }
    });
  };
  client.on('qr', (qr) => { serial('QR code', () => hooks.onQr(qr)); });
  client.on('authenticated', () => { serial('authentication', () => hooks.onAuthenticated()); });
  client.on('ready', () => { serial('ready', () => hooks.onReady()); });
  client.on('message', (message) => { serial('message', () => hooks.onMessage(message)); });
  client.on('disconnected', (reason) => { finish({ kind: 'disconnected', reason }); });
  client.on('auth_failure', (detail) => { finish({ kind: 'auth-failed', detail }); });
  const onAbort = (): void => { finish({ kind: 'stopped' }); };
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  client.initialize().catch((error: unknown) => { finish({ kind: 'failed', error }); });

  const ending = await ended;
  options.signal.removeEventListener('abort', onAbort);
  await options.onEnd().catch((error: unknown) => { options.logger.warn({ err: error }, 'whatsapp: ending the session failed'); });
  await client.destroy().catch((error: unknown) => { options.logger.warn({ err: error }, 'whatsapp: the browser did not close'); });
  await chain; // a message being taken finishes (or gives up) before the next client starts
  return ending;
}
