/**
 * Reading a Twilio webhook: the body (form-encoded, size-capped), then the `X-Twilio-Signature`
 * checked in constant time against the URL Twilio was given — `PUBLIC_URL` plus the request's path
 * and query, never the request's own Host header (a proxy in front changes it) — then the account.
 */
import type { IncomingMessage } from 'node:http';
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { readBody } from '../../src/runtime/http/router.ts';
import { escapeHtmlText } from '../kit/render/html-escape.ts';

/** Largest webhook body, in bytes: an inbound SMS with ten media URLs is a few kilobytes. */
export const MAX_WEBHOOK_BYTES = 64 * 1024;

/** The parameters of a webhook, by name (Twilio never repeats a name). */
export type WebhookParams = Readonly<Record<string, string>>;

/** A verified webhook, or why it was refused. */
export type WebhookReading =
  | { readonly ok: true; readonly params: WebhookParams; readonly idempotencyToken?: string }
  | { readonly ok: false; readonly status: 403 | 413; readonly reason: string };

/** What checking needs. */
export interface WebhookCheck {
  /** `TWILIO_AUTH_TOKEN`: the signature key. */
  readonly authToken: string;
  /** `TWILIO_ACCOUNT_SID`: a webhook of another account is refused. */
  readonly accountSid: string;
  /** `PUBLIC_URL`, without trailing slash. */
  readonly publicUrl: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Reads and verifies one webhook request.
 *
 * @example
 * const reading = await readTwilioWebhook(req, { authToken, accountSid, publicUrl: env.publicUrl });
 * if (!reading.ok) { res.statusCode = reading.status; res.end(); return; }
 */
export async function readTwilioWebhook(req: IncomingMessage, check: WebhookCheck): Promise<WebhookReading> {
  let body: Buffer;
  try {
    body = await readBody(req, MAX_WEBHOOK_BYTES);
  } catch {
    return { ok: false, status: 413, reason: `body over ${MAX_WEBHOOK_BYTES} bytes` };
  }
  const params = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  const signature = header(req, 'x-twilio-signature');
  if (signature === undefined) return { ok: false, status: 403, reason: 'no X-Twilio-Signature' };
  const url = `${check.publicUrl}${req.url ?? '/'}`;
  if (!validateRequest(check.authToken, signature, url, params)) return { ok: false, status: 403, reason: `signature does not match ${url}` };
  if (params['AccountSid'] !== check.accountSid) return { ok: false, status: 403, reason: 'webhook of another account' };
  const idempotencyToken = header(req, 'i-twilio-idempotency-token');
  return { ok: true, params, ...(idempotencyToken === undefined ? {} : { idempotencyToken }) };
}

/** An empty TwiML answer: nothing to say now (replies go out through the REST API). */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** A TwiML answer carrying one message, its text XML-escaped. */
export function messageTwiml(text: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${escapeHtmlText(text)}</Message></Response>`;
}
