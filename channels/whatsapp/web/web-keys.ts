/**
 * The Redis keys of the web transport, all under `<prefix>:whatsapp:web:`. The session lease
 * itself is the service's (`<prefix>:lease:whatsapp:web-session`).
 */

/** The `singletonKey` of the web listener: one WhatsApp Web session across every process. */
export const WEB_SESSION_KEY = 'web-session';

/** The keys of one prefix. */
export interface WebKeys {
  /** The zipped RemoteAuth session named `session` (a string of bytes). */
  session(session: string): string;
  /** The link state (JSON) the operator page shows. */
  readonly linkState: string;
  /** The last link states, newest first (a list of JSON). */
  readonly linkHistory: string;
  /** When the session was last ready (ISO 8601): where the next catch-up starts. */
  readonly readyAt: string;
  /** Requests to send, pushed by any process, popped by the session's holder (a list of JSON). */
  readonly outbox: string;
  /** The holder's answer to one request (a list of one JSON). */
  reply(requestId: string): string;
  /** The message id a delivery was sent as, by idempotency key. */
  sent(idempotencyKey: string): string;
}

/** The web transport's keys under `prefix`. */
export function webKeys(prefix: string): WebKeys {
  const base = `${prefix}:whatsapp:web`;
  return {
    session: (session) => `${base}:auth:${session}`,
    linkState: `${base}:link`,
    linkHistory: `${base}:link:history`,
    readyAt: `${base}:ready-at`,
    outbox: `${base}:outbox`,
    reply: (requestId) => `${base}:reply:${requestId}`,
    sent: (idempotencyKey) => `${base}:sent:${idempotencyKey}`,
  };
}
