/**
 * The conversation an inbound mail belongs to. A conversation is one sender in one thread: the
 * thread is found from `In-Reply-To` / `References` (our own Message-IDs and every id seen before
 * are remembered), so a reply continues its session even when the client dropped part of the
 * chain; a new mail with no such headers starts a new conversation. Keys always start with the
 * sender's address, so naming someone else's Message-ID never joins their session.
 */
import type { EmailStore } from './email-store.ts';
import { messageIdsIn } from './message-ids.ts';

/** The headers that place a mail in a thread. */
export interface ThreadHeaders {
  /** The mail's own Message-ID, with `<>`. */
  readonly messageId: string;
  readonly inReplyTo?: string | undefined;
  readonly references?: string | readonly string[] | undefined;
}

/** Whether `conversationKey` is one of `sender`'s conversations. */
export function belongsTo(conversationKey: string, sender: string): boolean {
  return conversationKey === sender || conversationKey.startsWith(`${sender} `);
}

/** The key of a conversation of `sender` rooted at the Message-ID `root`. */
export function conversationKeyOf(sender: string, root: string): string {
  return `${sender} ${root}`;
}

/**
 * Finds (and remembers, for the next reply) the conversation of `mail` from `sender` (a lower-case
 * address).
 */
export async function resolveConversation(store: EmailStore, sender: string, mail: ThreadHeaders): Promise<string> {
  const parents = messageIdsIn(mail.inReplyTo);
  const references = messageIdsIn(mail.references);
  const chain = [...new Set([...parents, ...[...references].reverse()])];
  const known = await store.findThread(chain, (key) => belongsTo(key, sender));
  const root = references[0] ?? parents[0] ?? mail.messageId;
  const conversationKey = known ?? conversationKeyOf(sender, root);
  await store.rememberThread(mail.messageId, conversationKey);
  return conversationKey;
}
