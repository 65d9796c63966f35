/**
 * Reading a request from Slack (Events API or interactivity): the raw body, size-capped, then the
 * check Slack documents for `X-Slack-Signature` (`v0=` and the hex HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` under the signing secret, compared in constant time) and for
 * `X-Slack-Request-Timestamp` (within five minutes of now either way, against replays). Written
 * here rather than taken from Bolt, whose check builds two more HMACs per request to compare.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sameMac } from '../../src/runtime/crypto/signing.ts';
import { readBody } from '../../src/runtime/http/router.ts';

/** Largest request body, in bytes (Slack's event payloads are a few kilobytes). */
export const MAX_SLACK_BODY_BYTES = 256 * 1024;

/** A verified request's body, or why it was refused. */
export type SlackReading =
  | { readonly ok: true; readonly body: string; readonly retryNum?: number }
  | { readonly ok: false; readonly status: 401 | 413; readonly reason: string };

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** How far a request's timestamp may be from now, in seconds (Slack's five minutes). */
const MAX_SKEW_SECONDS = 300;

/** The last signing secret's key, kept so each request does not import it again. */
let cachedKey: { readonly secret: string; readonly key: KeyObject } | undefined;

function keyOf(secret: string): KeyObject {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return cachedKey.key;
}

/**
 * Whether `signature` is Slack's for `body` sent at `timestamp` (the header's text: whole seconds
 * since the epoch) under `signingSecret`, and the timestamp is within five minutes of `nowMs`.
 */
export function isSlackSignature(signingSecret: string, timestamp: string, body: string, signature: string, nowMs: number): boolean {
  if (signingSecret === '' || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > MAX_SKEW_SECONDS) return false;
  return sameMac(signature, `v0=${createHmac('sha256', keyOf(signingSecret)).update(`v0:${timestamp}:${body}`).digest('hex')}`);
}

/**
 * Reads and verifies one request.
 *
 * @example
 * const reading = await readSlackRequest(req, env.slack.signingSecret, Date.now());
 */
export async function readSlackRequest(req: IncomingMessage, signingSecret: string, nowMs: number): Promise<SlackReading> {
  let raw: Buffer;
  try {
    raw = await readBody(req, MAX_SLACK_BODY_BYTES);
  } catch {
    return { ok: false, status: 413, reason: `body over ${MAX_SLACK_BODY_BYTES} bytes` };
  }
  const signature = header(req, 'x-slack-signature');
  const timestamp = header(req, 'x-slack-request-timestamp');
  if (signature === undefined || timestamp === undefined) return { ok: false, status: 401, reason: 'missing X-Slack-Signature or X-Slack-Request-Timestamp' };
  const body = raw.toString('utf8');
  if (!isSlackSignature(signingSecret, timestamp, body, signature, nowMs)) return { ok: false, status: 401, reason: 'bad signature, or a timestamp more than five minutes from now' };
  const retry = Number(header(req, 'x-slack-retry-num'));
  return { ok: true, body, ...(Number.isInteger(retry) ? { retryNum: retry } : {}) };
}
