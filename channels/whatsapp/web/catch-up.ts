/**
 * Messages that arrived while the session was offline: WhatsApp Web does not always raise
 * `message` for them once it syncs, so on `ready` the recent messages of every unread chat are
 * read again. The intake drops the ones already taken (same message id). Only messages since the
 * session was last ready are read (at most a day back): a newly linked phone's old unread chats
 * start nothing.
 */
import type { WebMessage, WhatsAppWebClient } from './web-client.ts';

/** Options of {@link unreadSince}. */
export interface CatchUpOptions {
  /** Messages sent before this time (epoch ms) are left alone. */
  readonly sinceMs: number;
  /** Most messages read per chat. Default 50. */
  readonly perChat?: number;
}

/** The unread chats' messages sent at or after `sinceMs`, oldest first within each chat. */
export async function unreadSince(client: Pick<WhatsAppWebClient, 'getChats'>, options: CatchUpOptions): Promise<WebMessage[]> {
  const perChat = options.perChat ?? 50;
  const chats = (await client.getChats()).filter((chat) => chat.unreadCount > 0);
  const found: WebMessage[] = [];
  for (const chat of chats) {
    const messages = await chat.fetchMessages({ limit: Math.min(chat.unreadCount, perChat) });
    found.push(...messages.filter((message) => !message.fromMe && message.timestamp * 1000 >= options.sinceMs));
  }
  return found;
}
