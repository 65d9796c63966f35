/**
 * Reading a Cloud API webhook request: the raw body, size-capped, then `X-Hub-Signature-256`
 * checked over those exact bytes (`signature.ts`); only a body Meta signed is parsed as JSON.
 */
import type { IncomingMessage } from 'node:http';
import { readBody } from '../../../src/runtime/http/router.ts';
import { isValidHubSignature } from './signature.ts';

/** Largest webhook body, in bytes (1 MiB; Meta's webhooks are a few kilobytes). */
export const MAX_CLOUD_WEBHOOK_BYTES = 1024 * 1024;

/** A verified webhook's parsed body, or why it was refused. */
export type CloudWebhookReading =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly status: 400 | 403 | 413; readonly reason: string };

/**
 * Reads and verifies one webhook request. Nothing of an unsigned body is parsed.
 *
 * @example
 * const reading = await readSignedWebhook(req, env.appSecret);
 * if (!reading.ok) { res.statusCode = reading.status; res.end(); return; }
 */
export async function readSignedWebhook(req: IncomingMessage, appSecret: string, maxBytes = MAX_CLOUD_WEBHOOK_BYTES): Promise<CloudWebhookReading> {
  let raw: Buffer;
  try {
    raw = await readBody(req, maxBytes);
  } catch {
    return { ok: false, status: 413, reason: `body over ${maxBytes} bytes` };
  }
  const header = req.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || header === '') return { ok: false, status: 403, reason: 'no X-Hub-Signature-256' };
  if (!isValidHubSignature(raw, header, appSecret)) return { ok: false, status: 403, reason: 'X-Hub-Signature-256 does not match the body' };
  try {
    return { ok: true, body: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, reason: 'the body is not JSON' };
  }
}
