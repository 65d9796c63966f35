/**
 * Finds a Slack post whose send had no recorded outcome. Every `chat.postMessage` of the sender
 * carries message metadata `{ event_type: 'switchboard_delivery', event_payload: { tag } }` (the
 * tag: sha256 of the idempotency key); Slack returns it with `include_all_metadata`, so the
 * conversation (`conversations.history`) or the thread (`conversations.replies`) is read from a few
 * minutes before the intent, looking for the tag. A post to a user id is looked for in the app's DM
 * with them (`conversations.open`).
 *
 * Other payloads: a status or an update of the same text repeats harmlessly (`absent`: send it
 * again); an ephemeral note is kept nowhere (`unknown`: the channel's rule).
 *
 * Scopes: `channels:history`, `groups:history`, `im:history`, `mpim:history` (the manifest's) and
 * `im:write` for a DM. Slack limits these reads for apps outside its Marketplace (one call a
 * minute, 15 messages): a 429 is retried after its `Retry-After` without pausing the channel.
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelSender, SendIntent, SentLookup } from '../../queues/outbound-types.ts';
import { absentOnceSettled, deliveryTag, SILENT_SETTLE_MS } from '../../queues/sent-lookup.ts';
import { readSlackPayload, type SlackPayload } from './slack-payload.ts';
import type { SlackStore } from './slack-store.ts';

/** The `event_type` of the metadata our posts carry. */
export const DELIVERY_EVENT_TYPE = 'switchboard_delivery';

/** How long after an intent a post made under it is sure to be listed, in ms: the client's 10 s timeout and a margin. */
export const SLACK_SETTLE_MS = 30_000;

/** How far before the intent the search starts, in ms: room for a clock that runs ahead of Slack's. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Messages asked for per page (Slack's recommended most). */
const PAGE_SIZE = 200;

/** Pages read before giving up as `unknown`. */
const MAX_PAGES = 5;

/** Options of {@link createSlackFindSent}. */
export interface SlackFindSentOptions {
  readonly client: WebClient;
  /** A post found under a `key` is remembered there, as a post sent now would be. */
  readonly store: Pick<SlackStore, 'rememberMessage'>;
  /** See {@link SLACK_SETTLE_MS}; in ms. Default {@link SLACK_SETTLE_MS}. */
  readonly settleMs?: number;
}

/**
 * The metadata argument of a post of the delivery keyed `idempotencyKey`.
 *
 * @example
 * await client.chat.postMessage({ channel, text, metadata: deliveryMetadata(delivery.idempotencyKey) });
 */
export function deliveryMetadata(idempotencyKey: string): { event_type: string; event_payload: { tag: string } } {
  return { event_type: DELIVERY_EVENT_TYPE, event_payload: { tag: deliveryTag(idempotencyKey) } };
}

type Post = Extract<SlackPayload, { op: 'post' }>;

interface ListedMessage {
  readonly ts?: string;
  readonly metadata?: { readonly event_type?: string; readonly event_payload?: Readonly<Record<string, unknown>> };
}

interface Page {
  readonly messages?: readonly ListedMessage[];
  readonly response_metadata?: { readonly next_cursor?: string };
}

/** A lookup failure as the queue takes it: Slack's refusals are permanent (`unknown`), the rest retried. */
function lookupError(error: unknown): DeliveryError {
  const failure = error as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown }; message?: unknown };
  if (failure.code === ErrorCode.RateLimitedError) {
    // Not `rateLimited`: a read's limit is no reason to pause the channel's posts.
    const retryAfterMs = typeof failure.retryAfter === 'number' ? failure.retryAfter * 1000 : undefined;
    return new DeliveryError('Slack rate-limited the look-up of an earlier post.', { status: 429, providerCode: 'ratelimited', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (failure.code === ErrorCode.PlatformError) {
    const code = typeof failure.data?.error === 'string' ? failure.data.error : 'unknown_error';
    return new DeliveryError(`Slack refused the look-up of an earlier post: ${code}`, { providerCode: code, permanent: code !== 'internal_error' && code !== 'fatal_error' });
  }
  return new DeliveryError(`Slack could not be reached to look up an earlier post: ${typeof failure.message === 'string' ? failure.message : String(error)}`);
}

/** The conversation id to read: a user id (a DM the post opened) becomes the DM's id. */
async function conversationOf(client: WebClient, channel: string): Promise<string> {
  if (!/^[UW]/.test(channel)) return channel;
  const opened = await client.conversations.open({ users: channel });
  const id = opened.channel?.id;
  if (id === undefined) throw new DeliveryError(`Slack opened no DM with ${channel}`, { permanent: true });
  return id;
}

/** One page of the thread (oldest first) or of the conversation (newest first). */
async function readPage(client: WebClient, channel: string, post: Post, oldest: string, cursor: string | undefined): Promise<Page> {
  const common = { channel, oldest, limit: PAGE_SIZE, include_all_metadata: true, ...(cursor === undefined ? {} : { cursor }) };
  if (post.threadTs !== undefined) return client.conversations.replies({ ...common, ts: post.threadTs });
  return client.conversations.history(common);
}

/** Reads from `oldest` on; the `ts` of the message tagged `tag`, `absent` when read to the end, else `unknown`. */
async function search(client: WebClient, channel: string, post: Post, tag: string, oldest: string): Promise<{ ts: string } | 'absent' | 'unknown'> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await readPage(client, channel, post, oldest, cursor);
    const found = (answer.messages ?? []).find((message) => message.metadata?.event_type === DELIVERY_EVENT_TYPE && message.metadata.event_payload?.['tag'] === tag);
    if (found?.ts !== undefined) return { ts: found.ts };
    cursor = answer.response_metadata?.next_cursor;
    if (cursor === undefined || cursor === '') return 'absent';
  }
  return 'unknown';
}

async function findPost(options: SlackFindSentOptions, post: Post, idempotencyKey: string, intent: SendIntent): Promise<SentLookup> {
  const { client } = options;
  const channel = await conversationOf(client, post.channel);
  const oldest = ((intent.since - CLOCK_SKEW_MS) / 1000).toFixed(6);
  const found = await search(client, channel, post, deliveryTag(idempotencyKey), oldest);
  if (found === 'unknown') return { kind: 'unknown', reason: `Slack listed more than ${String(MAX_PAGES * PAGE_SIZE)} messages since the intent without the post` };
  if (found === 'absent') return absentOnceSettled(intent, options.settleMs ?? SLACK_SETTLE_MS, { afterSilenceMs: SILENT_SETTLE_MS });
  const where = { channel, ts: found.ts };
  if (post.key !== undefined) await options.store.rememberMessage(`${post.channel}:${post.key}`, where);
  return { kind: 'sent', receipt: { providerMessageId: found.ts, details: { channel } } };
}

/**
 * Creates the Slack sender's `findSent`; see the file's comment.
 *
 * @example
 * const sender = { ...createSlackSender({ client, store }), findSent: createSlackFindSent({ client, store }) };
 */
export function createSlackFindSent(options: SlackFindSentOptions): NonNullable<ChannelSender['findSent']> {
  return async (delivery, intent) => {
    const payload = readSlackPayload(delivery.payload);
    switch (payload.op) {
      case 'post':
        try {
          return await findPost(options, payload, delivery.idempotencyKey, intent);
        } catch (error) {
          throw error instanceof DeliveryError ? error : lookupError(error);
        }
      case 'status':
      case 'update':
        return { kind: 'absent' };
      case 'ephemeral':
        return { kind: 'unknown', reason: 'Slack keeps no record of an ephemeral message' };
    }
  };
}
