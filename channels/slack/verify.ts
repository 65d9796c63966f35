/**
 * Reading a request from Slack (Events API or interactivity): the raw body, size-capped, then
 * Bolt's own check of `X-Slack-Signature` (`v0:<timestamp>:<raw body>`, HMAC-SHA256 with the
 * signing secret, compared in constant time) and of `X-Slack-Request-Timestamp` (at most five
 * minutes old, against replays).
 */
import type { IncomingMessage } from 'node:http';
import { isValidSlackRequest } from '@slack/bolt';
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
  const timestamp = Number(header(req, 'x-slack-request-timestamp'));
  if (signature === undefined || !Number.isFinite(timestamp)) return { ok: false, status: 401, reason: 'missing X-Slack-Signature or X-Slack-Request-Timestamp' };
  const body = raw.toString('utf8');
  const valid = isValidSlackRequest({ signingSecret, body, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp }, nowMilliseconds: nowMs });
  if (!valid) return { ok: false, status: 401, reason: 'bad signature or a timestamp older than five minutes' };
  const retry = Number(header(req, 'x-slack-retry-num'));
  return { ok: true, body, ...(Number.isInteger(retry) ? { retryNum: retry } : {}) };
}
