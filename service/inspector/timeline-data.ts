/**
 * What the timeline of one conversation shows, read at once: the index's summary, the log's
 * entries (the oldest {@link MAX_TIMELINE_ENTRIES}), and the approval records the entries name or
 * that belong to the conversation among the recent ones, each with its audit trail.
 */
import type { StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { approvalIdsOf } from './action-views.ts';
import type { ApprovalDetail } from './entry-view.ts';
import type { ConversationSummary } from '../../src/runtime/inspect/conversation-index.ts';
import type { InspectorSources } from './inspector-sources.ts';

/** The most entries one timeline shows (the JSON twin answers the same). */
export const MAX_TIMELINE_ENTRIES = 5000;
/** The most approval records one timeline reads. */
const MAX_APPROVALS = 50;
/** How many of the newest approvals are searched for the conversation's own. */
const RECENT_APPROVALS = 100;

/** One conversation's timeline data. */
export interface TimelineData {
  readonly sessionId: string;
  readonly summary?: ConversationSummary;
  readonly entries: readonly StoredEventLogEntry[];
  /** The log has more entries than were read. */
  readonly truncated: boolean;
  readonly approvals: ReadonlyMap<string, ApprovalDetail>;
  /** The stream id of the last entry read (`0` for an empty log): where the live view starts. */
  readonly after: string;
}

/** The stream id of a log entry id (`<ms>-<seq>`, without a batch's `/<n>`). */
export function streamIdOf(entryId: string): string {
  return entryId.split('/')[0] ?? entryId;
}

/** Reads the approval records `ids` (unknown ones left out), each with its audit trail. */
export async function readApprovals(sources: Pick<InspectorSources, 'approvals'>, ids: Iterable<string>): Promise<Map<string, ApprovalDetail>> {
  const wanted = [...new Set(ids)].slice(0, MAX_APPROVALS);
  const details = await Promise.all(
    wanted.map(async (id) => {
      const [record, audit] = await Promise.all([sources.approvals.get(id), sources.approvals.audit(id)]);
      return record === undefined ? undefined : { record, audit };
    }),
  );
  return new Map(details.flatMap((detail) => (detail === undefined ? [] : [[detail.record.approvalId, detail] as const])));
}

/** The timeline of `sessionId`, or `undefined` when neither the index nor the log knows it. */
export async function loadTimeline(sources: InspectorSources, sessionId: string): Promise<TimelineData | undefined> {
  const [summary, read, recent] = await Promise.all([
    sources.conversations.get(sessionId),
    sources.eventLog.read(sessionId, MAX_TIMELINE_ENTRIES + 1),
    sources.approvals.list({ limit: RECENT_APPROVALS }),
  ]);
  if (summary === undefined && read.length === 0) return undefined;
  const entries = read.slice(0, MAX_TIMELINE_ENTRIES);
  const named = entries.flatMap((entry) => approvalIdsOf((entry as { data?: unknown }).data));
  const own = recent.filter((record) => record.sessionId === sessionId).map((record) => record.approvalId);
  const last = entries.at(-1);
  return {
    sessionId,
    ...(summary === undefined ? {} : { summary }),
    entries,
    truncated: read.length > MAX_TIMELINE_ENTRIES,
    approvals: await readApprovals(sources, [...named, ...own]),
    after: last === undefined ? '0' : streamIdOf(last.id),
  };
}
