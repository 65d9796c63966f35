/**
 * Who owns each web conversation: the browser identity that first posted to it or opened it
 * (`SET NX <prefix>:web:owner:<conversationId> <identity>`). Only the owner may post to a
 * conversation, read its stream or name it when deciding an approval.
 */
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../../src/protocol/errors.ts';

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
  return {
    async claim(conversationId, identity, read) {
      const key = keyOf(conversationId);
      // Read first: every message after the first finds its owner with this one command.
      const owner = (await (read ?? redis.get(key))) ?? ((await redis.set(key, identity, 'NX')) === 'OK' ? identity : await redis.get(key));
      if (owner !== identity) throw notYourConversation(conversationId);
    },
    read: (conversationId) => redis.get(keyOf(conversationId)),
    async owns(conversationId, identity) {
      return (await redis.get(keyOf(conversationId))) === identity;
    },
  };
}
