/**
 * The durable event stream of each web chat conversation: a capped Redis Stream per conversation
 * plus a pub/sub channel announcing each new entry. The stream entry id is the SSE event id, so a
 * reconnecting page resumes exactly after the last event it saw.
 */

import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { isConversationId } from '../conversation-id.ts';
import { runAppendScript } from './append-script.ts';
import { checkWebChatEvent, type WebChatEvent } from './chat-event.ts';
import { untilRedisReady } from '../../../src/runtime/redis/redis-ready.ts';
import { createWebSubscriptions } from './subscriptions.ts';

/** One stored event with its stream entry id. */
export interface StoredWebChatEvent {
  /** The Redis Stream entry id (`<ms>-<seq>`), also the SSE event id. */
  readonly id: string;
  readonly event: WebChatEvent;
}

/** An event as announced live, with the id of the entry before it. */
export interface LiveWebChatEvent extends StoredWebChatEvent {
  /**
   * The id of the conversation's previous entry (`0` for the first): when it is not the last id a
   * listener saw, the listener missed an announcement (e.g. while Redis reconnected) and should
   * read the stream.
   */
  readonly previousId: string;
}

/** Receives each event appended to a subscribed conversation, in append order. */
type WebChatEventListener = (live: LiveWebChatEvent) => void;

/** Ends a subscription. Never rejects. */
export type Unsubscribe = () => Promise<void>;

/** Options of {@link createWebEventStore}. */
export interface WebEventStoreOptions {
  /** The connection for commands. Not closed by the store. */
  readonly redis: Redis;
  /**
   * The connection used for SUBSCRIBE, shared by every subscription of this store. When given, the
   * caller owns it; when omitted, the store duplicates `redis` on the first subscription and
   * closes that duplicate in {@link WebEventStore.close}.
   */
  readonly subscriber?: Redis;
  /** Prefix of every key and channel, e.g. `switchboard` gives `switchboard:web:<conversationId>`. */
  readonly keyPrefix: string;
  /** Approximate cap of entries kept per conversation (`XADD MAXLEN ~`). Default 2000. */
  readonly maxLen?: number;
  /**
   * How many of a conversation's latest events an append searches for an earlier copy with the same
   * idempotency key (their digests are kept in `<keyPrefix>:web-recent:<conversationId>`, a list of
   * at most this many pairs of short elements: digest, stream id). Default 32: a retried delivery
   * comes within seconds of its first try, while at most a few events of the same conversation can
   * come in between.
   */
  readonly idempotencyWindow?: number;
  /**
   * Called with errors of the owned subscriber connection, undecodable published messages and
   * exceptions thrown by listeners. Default: ignore.
   */
  readonly onError?: (error: Error) => void;
}

/** The per-conversation event stream of the web chat. */
export interface WebEventStore {
  /**
   * Appends an event, once per idempotency key: a second append with the same key (while the first
   * is among the latest `idempotencyWindow` events) stores nothing and answers the first entry's id
   * with `duplicate: true`.
   */
  append(conversationId: string, event: WebChatEvent, idempotencyKey: string): Promise<{ id: string; duplicate: boolean }>;
  /**
   * Reads up to `count` events stored after `afterId` (a stream id, or `0` for the beginning),
   * oldest first. Entries that cannot be decoded are skipped.
   */
  readAfter(conversationId: string, afterId: string, count: number): Promise<StoredWebChatEvent[]>;
  /**
   * Delivers each event appended from now on to `listener`. Resolves once Redis confirmed the
   * subscription, so an event appended after that is certain to reach the listener. Events
   * appended while the subscriber connection was away (Redis restarted) never reach it: `onResume`
   * is called once the connection is back and subscribed again, for the caller to read them from
   * the stream. Rejects with `redis.unavailable` when Redis cannot be reached within 2 s.
   */
  subscribe(conversationId: string, listener: WebChatEventListener, onResume?: () => void): Promise<Unsubscribe>;
  /** Ends every subscription and closes the subscriber connection if the store owns it. */
  close(): Promise<void>;
}

const DEFAULT_MAX_LEN = 2000;
/** How long a resumed subscription waits for the command connection, in milliseconds. */
const RESUME_WAIT_MS = 2000;
const DEFAULT_IDEMPOTENCY_WINDOW = 32;

/**
 * Creates the web chat event store.
 *
 * @example
 * const store = createWebEventStore({ redis, keyPrefix: 'switchboard' });
 * await store.append('c1', { type: 'turn', turnId: 't1', turnState: 'complete' }, 't1:settled');
 */
export function createWebEventStore(options: WebEventStoreOptions): WebEventStore {
  const { redis, keyPrefix } = options;
  const maxLen = options.maxLen ?? DEFAULT_MAX_LEN;
  const window = options.idempotencyWindow ?? DEFAULT_IDEMPOTENCY_WINDOW;
  const onError = options.onError ?? (() => undefined);

  const streamKey = (conversationId: string): string => `${keyPrefix}:web:${checked(conversationId)}`;
  const channelOf = (conversationId: string): string => `${keyPrefix}:web-live:${checked(conversationId)}`;

  const subscriptions = createWebSubscriptions<LiveWebChatEvent>({
    connect: () => {
      if (options.subscriber !== undefined) return { connection: options.subscriber, owned: false };
      const connection = redis.duplicate();
      connection.on('error', onError);
      return { connection, owned: true };
    },
    decode: (message) => {
      const stored = decodePublished(message);
      if (stored === undefined) onError(new Error('Undecodable web chat event on pub/sub.'));
      return stored;
    },
    onListenerError: (error) => {
      onError(error instanceof Error ? error : new Error(String(error)));
    },
  });

  return {
    async append(conversationId, event, idempotencyKey) {
      if (idempotencyKey.length === 0) throw new SwitchboardError('internal', 'An idempotency key is required.');
      return await runAppendScript(redis, {
        streamKey: streamKey(conversationId),
        recentKey: `${keyPrefix}:web-recent:${checked(conversationId)}`,
        channel: channelOf(conversationId),
        eventJson: JSON.stringify(event),
        idempotencyKey,
        maxLen,
        window,
      });
    },

    async readAfter(conversationId, afterId, count) {
      const entries = await redis.xrange(streamKey(conversationId), `(${afterId}`, '+', 'COUNT', count);
      const events: StoredWebChatEvent[] = [];
      for (const [id, fields] of entries) {
        const index = fields.indexOf('event');
        const stored = decodeEntry(id, fields[index + 1]);
        if (stored !== undefined) events.push(stored);
      }
      return events;
    },

    subscribe(conversationId, listener, onResume) {
      // The subscriber may be back before the command connection the caller reads with: wait for it
      // (bounded), so that the caller's read does not fail for nothing.
      const resume = onResume === undefined ? undefined : (): void => {
        untilRedisReady(redis, RESUME_WAIT_MS).then(onResume, onResume);
      };
      return subscriptions.add(channelOf(conversationId), listener, resume);
    },

    close() {
      return subscriptions.close();
    },
  };
}

function checked(conversationId: string): string {
  if (!isConversationId(conversationId)) {
    throw new SwitchboardError('internal', 'Not a valid web conversation id.', { details: { conversationId } });
  }
  return conversationId;
}

function decodeEntry(id: string, json: string | undefined): StoredWebChatEvent | undefined {
  if (json === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const check = checkWebChatEvent(value);
  return check.ok ? { id, event: check.event } : undefined;
}

function decodePublished(message: string): LiveWebChatEvent | undefined {
  const first = message.indexOf(' ');
  const second = message.indexOf(' ', first + 1);
  if (first <= 0 || second <= first + 1) return undefined;
  const stored = decodeEntry(message.slice(first + 1, second), message.slice(second + 1));
  return stored === undefined ? undefined : { ...stored, previousId: message.slice(0, first) };
}
