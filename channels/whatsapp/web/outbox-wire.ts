/**
 * What goes through Redis between a worker that sends (`web-transport.ts`) and the process that
 * holds the session (`web-outbox.ts`): a request on the outbox list, an answer on the request's
 * own reply key.
 */
import type { WhatsAppOut } from '../transport.ts';

/** One message to send, as pushed on the outbox. */
export interface OutboxRequest {
  /** Random; names the reply key. */
  readonly requestId: string;
  /** The delivery's key: a second request with the same key is answered without sending again. */
  readonly idempotencyKey: string;
  readonly message: WhatsAppOut;
  /** When the sender stops waiting (epoch ms): a request found after it is dropped, not sent. */
  readonly deadline: number;
}

/** The holder's answer. */
export type OutboxReply =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly permanent: boolean; readonly message: string; readonly providerCode?: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Reads a request; `undefined` for anything malformed. */
export function parseOutboxRequest(json: string): OutboxRequest | undefined {
  const value: unknown = JSON.parse(json);
  if (!isObject(value) || !isObject(value['message'])) return undefined;
  const { requestId, idempotencyKey, deadline } = value;
  if (typeof requestId !== 'string' || typeof idempotencyKey !== 'string' || typeof deadline !== 'number') return undefined;
  return value as unknown as OutboxRequest;
}

/** Reads an answer; `undefined` for anything malformed. */
export function parseOutboxReply(json: string): OutboxReply | undefined {
  const value: unknown = JSON.parse(json);
  if (!isObject(value)) return undefined;
  if (value['ok'] === true && typeof value['id'] === 'string') return value as unknown as OutboxReply;
  if (value['ok'] === false && typeof value['message'] === 'string' && typeof value['permanent'] === 'boolean') return value as unknown as OutboxReply;
  return undefined;
}
