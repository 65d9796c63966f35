/**
 * Which task a peer's message started: a peer that sends the same message again (a retry after a
 * timeout or a crash on its side) is told the task the message already has, so it can follow that
 * one instead of getting nothing.
 */
import type { Redis } from 'ioredis';

/** How long a message's task is remembered, in seconds: as long as its injection id (7 days). */
export const PEER_MESSAGE_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Remembers the first task of each peer message. */
export interface PeerMessages {
  /** Records `taskId` for the message unless one is recorded; resolves to the recorded one. */
  firstTask(peerId: string, messageId: string, taskId: string): Promise<string>;
  /**
   * Records `taskId` for the message whatever was recorded: the task whose enqueue won runs it
   * (the first one's process may have died before enqueueing, or two sends raced).
   */
  claim(peerId: string, messageId: string, taskId: string): Promise<void>;
}

/** The message-to-task record in Redis (`<prefix>:a2a:msg:<peer>:<messageId>`). */
export function createPeerMessages(options: { readonly redis: Redis; readonly prefix: string; readonly ttlSeconds?: number }): PeerMessages {
  const ttl = options.ttlSeconds ?? PEER_MESSAGE_TTL_SECONDS;
  const key = (peerId: string, messageId: string): string => `${options.prefix}:a2a:msg:${peerId}:${messageId}`;
  return {
    async firstTask(peerId, messageId, taskId) {
      if ((await options.redis.set(key(peerId, messageId), taskId, 'EX', ttl, 'NX')) === 'OK') return taskId;
      return (await options.redis.get(key(peerId, messageId))) ?? taskId;
    },
    async claim(peerId, messageId, taskId) {
      await options.redis.set(key(peerId, messageId), taskId, 'EX', ttl);
    },
  };
}
