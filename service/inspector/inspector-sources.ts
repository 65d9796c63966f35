/**
 * What the inspector pages read: the conversation index (`src/runtime/inspect/conversation-index.ts`),
 * the capture store (`src/runtime/inspect/capture-store.ts`), the session event log and the
 * approval store, each as far as the pages use it, so a test can hand them small in-memory fakes.
 */
import type { ApprovalStore } from '../../src/runtime/approvals/approval-types.ts';
import type { CaptureStore } from '../../src/runtime/inspect/capture-store.ts';
import type { ConversationIndex, ConversationState } from '../../src/runtime/inspect/conversation-index.ts';
import type { EventLog, StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';

/** The {@link ConversationState}s, for validating a filter. */
export const CONVERSATION_STATES: readonly ConversationState[] = ['in-progress', 'suspended', 'failed', 'settled'];

/** A session's log entries newer than a stream id, waiting a while for them. */
export interface LogFollower {
  /**
   * The entries of the stream entries after `after` (a stream id such as `1700000000000-0`, or
   * `0` for all), at most `count` stream entries, waiting up to `blockMs` for the first; `[]`
   * when none came. Each item is one stream entry with the log entries written in it.
   */
  readAfter(after: string, blockMs: number, count: number): Promise<{ readonly streamId: string; readonly entries: readonly StoredEventLogEntry[] }[]>;
  /** Gives its connection back; a read under way rejects or answers `[]`. */
  close(): void;
}

/** What the inspector routes read. */
export interface InspectorSources {
  readonly conversations: Pick<ConversationIndex, 'search' | 'get'>;
  readonly eventLog: Pick<EventLog, 'read'>;
  readonly approvals: Pick<ApprovalStore, 'get' | 'audit' | 'list'>;
  /** Full model requests and responses; without it no capture link is shown. */
  readonly captures?: Pick<CaptureStore, 'read'>;
  /** Opens a follower of a session's log for the live view; without it the page does not update live. */
  readonly follow?: (sessionId: string) => LogFollower;
}
