/**
 * Reading what the web chat delivered: every event of a conversation's stream in Redis (the same
 * store the chat page's event stream reads), retried while Redis is restarting.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredWebChatEvent, WebEventStore } from '../channels/web/stream/event-store.ts';

/** More than a conversation of the run ever holds (its stream keeps about 2,000). */
const MAX_EVENTS = 100_000;

/** Every event of `conversation`, oldest first; waits out a Redis restart (tries for 60 s). */
export async function readConversation(store: WebEventStore, conversation: string): Promise<StoredWebChatEvent[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await store.readAfter(conversation, '0', MAX_EVENTS);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/** The approval ids that a conversation's `approval-request` parts carry, in order. */
export function approvalRequests(events: readonly StoredWebChatEvent[]): string[] {
  return events.flatMap(({ event }) => {
    if (event.type !== 'part' || event.part.metadata.partType !== 'approval-request') return [];
    const data = event.part.data as { approvalId?: unknown } | undefined;
    return typeof data?.approvalId === 'string' ? [data.approvalId] : [];
  });
}

/** When Redis appended an event: the millisecond part of its stream id. */
export function appendedAt(stored: StoredWebChatEvent): number {
  return Number(stored.id.split('-')[0]);
}
