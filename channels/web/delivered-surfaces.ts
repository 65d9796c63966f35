/**
 * Which surfaces each web conversation was shown: a Redis set per conversation,
 * `<prefix>:web-surfaces:<conversationId>`, of the surface ids of the `a2ui-surface` parts delivered
 * to it, kept `ttlMs` after the last one. The action route accepts a press only on a surface of this
 * set, so a page cannot make up a surface the service never showed. (The conversation's event
 * stream holds the parts too, but finding one there means reading up to its whole capped length.)
 */
import type { Redis } from 'ioredis';
import type { WebChatEvent } from './stream/chat-event.ts';

/** The surfaces delivered per conversation. */
export interface DeliveredSurfaces {
  /** Adds `surfaceId` to the conversation's set and restarts the set's time to live. */
  record(conversationId: string, surfaceId: string): Promise<void>;
  /** Whether `surfaceId` was delivered to the conversation within the time to live. */
  has(conversationId: string, surfaceId: string): Promise<boolean>;
}

/** Options of {@link createDeliveredSurfaces}. */
export interface DeliveredSurfacesOptions {
  /** Not closed by this module. */
  readonly redis: Redis;
  /** Key prefix, e.g. `sb`. */
  readonly prefix: string;
  /**
   * How long a conversation's surfaces stay pressable after the last surface delivered to it, in
   * ms. Default 30 days (a web session's own lifetime).
   */
  readonly ttlMs?: number;
}

const DEFAULT_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Creates the record of delivered surfaces.
 *
 * @example
 * const surfaces = createDeliveredSurfaces({ redis, prefix: 'sb' });
 * await surfaces.record('c1', 'flight-results');
 * await surfaces.has('c1', 'flight-results'); // true
 */
export function createDeliveredSurfaces(options: DeliveredSurfacesOptions): DeliveredSurfaces {
  const { redis, prefix } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const keyOf = (conversationId: string): string => `${prefix}:web-surfaces:${conversationId}`;
  return {
    async record(conversationId, surfaceId) {
      const key = keyOf(conversationId);
      const replies = await redis.multi().sadd(key, surfaceId).pexpire(key, ttlMs).exec();
      for (const [error] of replies ?? []) if (error !== null) throw error;
    },
    async has(conversationId, surfaceId) {
      return (await redis.sismember(keyOf(conversationId), surfaceId)) === 1;
    },
  };
}

/**
 * The surface id a web chat event shows, when it is the delivery of an `a2ui-surface` part: its
 * `createSurface.surfaceId`, else the `updateComponents` or `updateDataModel` one (as the page reads
 * it). `undefined` for any other event.
 */
export function surfaceIdOf(event: WebChatEvent): string | undefined {
  if (event.type !== 'part' || event.part.metadata.partType !== 'a2ui-surface') return undefined;
  const data = event.part.data;
  const idIn = (message: unknown): string | undefined => {
    const surfaceId = typeof message === 'object' && message !== null ? (message as { surfaceId?: unknown }).surfaceId : undefined;
    return typeof surfaceId === 'string' && surfaceId.length > 0 ? surfaceId : undefined;
  };
  return idIn(data?.['createSurface']) ?? idIn(data?.['updateComponents']) ?? idIn(data?.['updateDataModel']);
}
