/**
 * The Slack channel's sender: one Web API call per payload (`chat.postMessage` in the thread,
 * `assistant.threads.setStatus`, `chat.update` of a remembered message, `chat.postEphemeral`), and
 * Slack's errors mapped to the outbound queue's contract: rate limits with their `Retry-After`,
 * server and network errors retried, other API errors final. A status that Slack will not show (not
 * an assistant thread) is skipped, never failed: it is a nicety.
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelRateLimit, ChannelSender, SendReceipt } from '../../queues/outbound-types.ts';
import { createSlackFindSent, deliveryMetadata } from './find-sent.ts';
import { readSlackPayload, type SlackPayload } from './slack-payload.ts';
import type { SlackStore } from './slack-store.ts';

/** Options of {@link createSlackSender}. */
export interface SlackSenderOptions {
  readonly client: WebClient;
  readonly store: Pick<SlackStore, 'rememberMessage' | 'messageOf'>;
}

/** Slack API errors worth another try. */
const RETRYABLE = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

function deliveryErrorOf(error: unknown): DeliveryError {
  const failure = error as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown }; statusCode?: unknown; message?: unknown };
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  if (failure.code === ErrorCode.RateLimitedError) {
    const retryAfterMs = typeof failure.retryAfter === 'number' ? failure.retryAfter * 1000 : undefined;
    return new DeliveryError('Slack rate-limited the call.', { rateLimited: true, status: 429, providerCode: 'ratelimited', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (failure.code === ErrorCode.PlatformError) {
    const code = typeof failure.data?.error === 'string' ? failure.data.error : 'unknown_error';
    return new DeliveryError(`Slack refused the call: ${code}`, { providerCode: code, permanent: !RETRYABLE.has(code) });
  }
  const status = typeof failure.statusCode === 'number' ? failure.statusCode : undefined;
  return new DeliveryError(`Slack could not be reached: ${message}`, status === undefined ? {} : { status, permanent: status < 500 && status !== 429 });
}

/**
 * Remembers a posted message so it can be updated in place; the reason when that failed. Once
 * Slack took the message, the send must not fail: a retry would post it again (an approval card
 * twice, the first with buttons never updated). Without the record, its update is skipped instead.
 */
async function remember(store: SlackSenderOptions['store'], key: string, where: { channel: string; ts: string }): Promise<string | undefined> {
  try {
    await store.rememberMessage(key, where);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** One call; a post carries `key` (the delivery's idempotency key) in its metadata, so `find-sent.ts` can find it. */
async function call(payload: SlackPayload, options: SlackSenderOptions, key: string): Promise<SendReceipt> {
  const { client, store } = options;
  switch (payload.op) {
    case 'post': {
      const posted = await client.chat.postMessage({ channel: payload.channel, text: payload.text, ...(payload.blocks === undefined ? {} : { blocks: [...payload.blocks] }), ...(payload.threadTs === undefined ? {} : { thread_ts: payload.threadTs }), metadata: deliveryMetadata(key) });
      const where = { channel: posted.channel ?? payload.channel, ts: posted.ts ?? '' };
      const remembered = payload.key === undefined ? undefined : await remember(store, `${payload.channel}:${payload.key}`, where);
      return { providerMessageId: where.ts, details: { channel: where.channel, ...(remembered === undefined ? {} : { notRemembered: remembered }) } };
    }
    case 'status': {
      try {
        await client.assistant.threads.setStatus({ channel_id: payload.channel, thread_ts: payload.threadTs, status: payload.status });
        return { details: { status: payload.status } };
      } catch (error) {
        const failure = deliveryErrorOf(error);
        if (!failure.permanent) throw failure;
        return { details: { skipped: failure.providerCode ?? failure.message } };
      }
    }
    case 'update': {
      const where = payload.ts === undefined ? await store.messageOf(`${payload.channel}:${payload.lookupKey ?? ''}`) : { channel: payload.channel, ts: payload.ts };
      if (where === undefined) return { details: { skipped: 'no message to update' } };
      await client.chat.update({ channel: where.channel, ts: where.ts, text: payload.text, ...(payload.blocks === undefined ? {} : { blocks: [...payload.blocks] }) });
      return { providerMessageId: where.ts };
    }
    case 'ephemeral': {
      const posted = await client.chat.postEphemeral({ channel: payload.channel, user: payload.user, text: payload.text, ...(payload.threadTs === undefined ? {} : { thread_ts: payload.threadTs }) });
      return { ...(posted.message_ts === undefined ? {} : { providerMessageId: posted.message_ts }) };
    }
  }
}

/** The Web API method each payload `op` calls. */
const METHODS: Readonly<Record<SlackPayload['op'], string>> = {
  post: 'chat.postMessage',
  status: 'assistant.threads.setStatus',
  update: 'chat.update',
  ephemeral: 'chat.postEphemeral',
};

/**
 * Slack's limits are per method, per app and workspace. These follow its documented tiers, at the
 * floor of each: `chat.postMessage` "several hundred a minute" for the workspace (here 300), Tier 3
 * `chat.update` 50 a minute, Tier 4 `chat.postEphemeral` 100 a minute. `assistant.threads.setStatus`
 * has a special limit Slack does not publish: it is left to 429s, so a status is never held back
 * (it would hold up the answer behind it).
 */
export const SLACK_METHOD_LIMITS: Readonly<Record<string, ChannelRateLimit>> = {
  'chat.postMessage': { max: 300, durationMs: 60_000 },
  'chat.update': { max: 50, durationMs: 60_000 },
  'chat.postEphemeral': { max: 100, durationMs: 60_000 },
};

/** The Web API method a delivery calls; undefined for a payload that is not Slack's. */
function methodOf(payload: Readonly<Record<string, unknown>>): string | undefined {
  const op = payload['op'];
  return typeof op === 'string' && Object.hasOwn(METHODS, op) ? METHODS[op as SlackPayload['op']] : undefined;
}

/**
 * Creates the sender. Slack allows about one message a second per channel, with short bursts, and
 * each method its own rate for the workspace ({@link SLACK_METHOD_LIMITS}).
 */
export function createSlackSender(options: SlackSenderOptions): ChannelSender {
  return {
    destinationRateLimit: { max: 3, durationMs: 3000 },
    methodRateLimits: SLACK_METHOD_LIMITS,
    methodOf: (delivery) => methodOf(delivery.payload),
    // A post whose outcome was lost is looked for by its metadata; what cannot be found is not resent.
    findSent: createSlackFindSent(options),
    async send(delivery) {
      const payload = readSlackPayload(delivery.payload);
      try {
        return await call(payload, options, delivery.idempotencyKey);
      } catch (error) {
        throw error instanceof DeliveryError ? error : deliveryErrorOf(error);
      }
    },
  };
}
