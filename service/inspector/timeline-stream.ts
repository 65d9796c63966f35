/**
 * `GET /admin/conversations/:id/events`: the entries written to a conversation's log after a
 * point, as Server-Sent Events (`event: entry`, the entry's view as JSON, `id:` its stream id),
 * for the timeline page to append. The resume point is `Last-Event-ID`, else `?after=`, else `0`.
 * Open streams are capped per process, and each stream ends after a while with `event: end`
 * (the page then says it stopped following; a reload starts again).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { HttpContext } from '../../src/runtime/http/router.ts';
import type { InspectorSources, LogFollower } from './inspector-sources.ts';
import { isStreamId } from './query-params.ts';
import { approvalIdsOf } from './action-views.ts';
import { readApprovals } from './timeline-data.ts';
import { entryView } from './timeline-views.ts';

/** Limits of the live streams. */
export interface StreamLimits {
  /** Streams open at once in this process. Default 16. */
  readonly maxViewers?: number;
  /** How long one stream lasts, in ms. Default 10 minutes. */
  readonly maxMs?: number;
  /** How long one read waits for new entries before a keep-alive comment, in ms. Default 15 s. */
  readonly blockMs?: number;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;

/** Stream entries read at most at once. */
const READ_COUNT = 100;

function resumePoint(req: IncomingMessage, url: URL): string {
  const header = req.headers['last-event-id'];
  const value = (typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined) ?? url.searchParams.get('after') ?? '0';
  if (value !== '0' && !isStreamId(value)) throw new SwitchboardError('http.bad_request', 'The resume point (Last-Event-ID or ?after=) must be a stream id such as 1700000000000-0, or 0.', { details: { field: 'after' } });
  return value;
}

/** Sends what the follower reads until the stream closes or its time is up. */
async function pump(sources: InspectorSources, sessionId: string, follower: LogFollower, res: ServerResponse, state: { after: string; closed: boolean; blockMs: number }): Promise<void> {
  const context = { sessionId, captures: sources.captures !== undefined };
  // Read through a call: the flag changes while a read waits, which narrowing cannot see.
  const isClosed = (): boolean => state.closed;
  while (!isClosed()) {
    let batches: Awaited<ReturnType<LogFollower['readAfter']>>;
    try {
      batches = await follower.readAfter(state.after, state.blockMs, READ_COUNT);
    } catch (error) {
      if (!isClosed()) res.end(`event: end\ndata: ${JSON.stringify({ reason: 'error', message: error instanceof Error ? error.message : String(error) })}\n\n`);
      return;
    }
    if (isClosed()) return;
    if (batches.length === 0) {
      res.write(': still here\n\n');
      continue;
    }
    const approvals = await readApprovals(sources, batches.flatMap((batch) => batch.entries.flatMap((entry) => approvalIdsOf((entry as { data?: unknown }).data))));
    for (const batch of batches) {
      const events = batch.entries.map((entry) => `id: ${batch.streamId}\nevent: entry\ndata: ${JSON.stringify(entryView(entry, { ...context, approvals }))}\n\n`);
      if (isClosed()) return;
      res.write(events.join(''));
      state.after = batch.streamId;
    }
  }
}

/** The handler of the events route. */
export function timelineStreamHandler(sources: InspectorSources, limits: StreamLimits = {}): (context: HttpContext, sessionId: string) => Promise<void> {
  const maxViewers = limits.maxViewers ?? 16;
  const maxMs = limits.maxMs ?? 10 * 60_000;
  const blockMs = limits.blockMs ?? 15_000;
  let viewers = 0;
  return async ({ req, res, url }, sessionId) => {
    const follow = sources.follow;
    if (follow === undefined) throw new SwitchboardError('http.not_found', 'Live timelines are not available in this process.');
    const after = resumePoint(req, url);
    if (viewers >= maxViewers) {
      throw new SwitchboardError('http.too_many_streams', `${String(maxViewers)} live timelines are open already, the most allowed. Close one, or try again later.`, { details: { limit: maxViewers, retryAfterSeconds: 10 }, retryable: true });
    }
    if (req.method === 'HEAD') {
      res.writeHead(200, SSE_HEADERS);
      res.end();
      return;
    }
    viewers += 1;
    const follower = follow(sessionId);
    const state = { after, closed: false, blockMs };
    const timer = setTimeout(() => {
      if (!state.closed) res.end(`event: end\ndata: ${JSON.stringify({ reason: 'time' })}\n\n`);
    }, maxMs);
    const cleanup = (): void => {
      if (state.closed) return;
      state.closed = true;
      viewers -= 1;
      clearTimeout(timer);
      follower.close();
    };
    res.on('close', cleanup);
    res.on('finish', cleanup);
    res.writeHead(200, SSE_HEADERS);
    res.write('retry: 5000\n\n');
    try {
      await pump(sources, sessionId, follower, res, state);
    } finally {
      cleanup();
      if (!res.writableEnded) res.end();
    }
  };
}
