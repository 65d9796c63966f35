/**
 * Who owns each web conversation: the browser identity that first posted to it or opened it
 * (`SET NX <prefix>:web:owner:<conversationId> <identity>`). Only the owner may post to a
 * conversation, read its stream or name it when deciding an approval.
 *
 * An owner never changes once set, so a process remembers the owners it has seen (the most recently
 * used, {@link ConversationOwnersOptions.rememberedOwners}): a conversation's later messages are
 * checked without a Redis command. Only an owner found or set is remembered, never "nobody's".
 */
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { recentMap } from '../../../src/runtime/memo/recent-map.ts';

/** Conversation ownership in Redis. */
export interface ConversationOwners {
  /**
   * Claims the conversation for `identity` when nobody owns it yet; `read`, the owner as
   * {@link read} found it earlier, when the caller read it already.
   *
   * @throws SwitchboardError `http.forbidden` (403) when another identity owns it.
   */
  claim(conversationId: string, identity: string, read?: Promise<string | null>): Promise<void>;
  /**
   * The conversation's owner now (`null`: nobody's yet). Read beside something else (a request's
   * session) and handed to {@link claim}, it spares the claim its own first round trip.
   */
  read(conversationId: string): Promise<string | null>;
  /** Whether `identity` owns the conversation (an unowned conversation is nobody's: `false`). */
  owns(conversationId: string, identity: string): Promise<boolean>;
}

/** Options of {@link createConversationOwners}. */
export interface ConversationOwnersOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** How many conversations' owners the process remembers (least recently used forgotten first). Default 10000. */
  readonly rememberedOwners?: number;
}

/** The 403 of a conversation owned by someone else. */
export function notYourConversation(conversationId: string): SwitchboardError {
  return new SwitchboardError('http.forbidden', 'This conversation belongs to another browser. Start a new conversation.', {
    details: { reason: 'not_owner', conversationId },
  });
}

/** Creates the ownership store. Keys carry no TTL: a conversation stays its owner's. */
export function createConversationOwners(options: ConversationOwnersOptions): ConversationOwners {
  const { redis, prefix } = options;
  const keyOf = (conversationId: string): string => `${prefix}:web:owner:${conversationId}`;
  const known = recentMap<string, string>(options.rememberedOwners ?? 10_000, { refreshOnGet: true });
  const seen = (conversationId: string, owner: string | null): string | null => {
    if (owner !== null) known.set(conversationId, owner);
    return owner;
  };
  const read = async (conversationId: string): Promise<string | null> =>
    known.get(conversationId) ?? seen(conversationId, await redis.get(keyOf(conversationId)));
  return {
    async claim(conversationId, identity, earlier) {
      const key = keyOf(conversationId);
      // Read first: every message after the first finds its owner without a write.
      const owner = (await (earlier ?? read(conversationId)))
        ?? seen(conversationId, (await redis.set(key, identity, 'NX')) === 'OK' ? identity : await redis.get(key));
      if (owner !== identity) throw notYourConversation(conversationId);
    },
    read,
    async owns(conversationId, identity) {
      return (await read(conversationId)) === identity;
    },
  };
}
