/**
 * `GET /api/chat/:conversationId/events`: the conversation's events as Server-Sent Events, for the
 * session that owns the conversation only (401 without a session, 403 for another's conversation;
 * the first to open an unowned conversation claims it). `HEAD` runs the same checks, so the page
 * can learn why a stream was refused.
 *
 * Order of work, so that nothing is lost or sent twice: subscribe first (live events are buffered),
 * then send the stored events after the resume point, then the buffered live events newer than the
 * last one sent, then live events as they come. A live event whose predecessor was not the last
 * one sent (a pub/sub message was lost, e.g. while the subscriber reconnected) starts the same
 * catch-up from the stream; so do the subscriber's return after Redis went away and every
 * heartbeat, for a loss with no event after it yet. A catch-up that cannot read Redis ends the
 * stream; the browser reconnects with `Last-Event-ID` (503 `redis.unavailable` while Redis is away).
 *
 * Open streams are capped per browser identity and per process (`stream-slots.ts`): one over
 * either cap is refused with 429 `http.too_many_streams` and `Retry-After` (`HEAD` tells the same).
 */

import type { IncomingMessage } from 'node:http';
import { asRequestError, sendJson, type Route } from '../../src/runtime/http/router.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { REDIS_RETRY_AFTER_SECONDS } from '../../src/runtime/redis/redis-unavailable.ts';
import { isConversationId } from './conversation-id.ts';
import { compareStreamIds, isStreamId } from './stream/stream-id.ts';
import type { LiveWebChatEvent, StoredWebChatEvent, Unsubscribe, WebEventStore } from './stream/event-store.ts';
import type { WebIdentity } from './identity/web-identity.ts';
import type { StreamSlots } from './stream/stream-slots.ts';

/** Options of {@link createWebEventsRoute}. */
export interface WebEventsRouteOptions {
  readonly store: WebEventStore;
  /** The stream answers only the session that owns the conversation (opening it claims it when unowned). */
  readonly identity: WebIdentity;
  /** Milliseconds between heartbeat comments (each followed by a catch-up read). */
  readonly heartbeatMs: number;
  /** Events read per backlog page. Default 500. */
  readonly pageSize?: number;
  /** The process's open-stream counters (per identity and in total); every stream takes a slot. */
  readonly slots: StreamSlots;
}

/** How long the browser waits before reconnecting, in milliseconds (sent as `retry:`). */
const RECONNECT_MS = 2000;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;

/** One event in the SSE wire format. */
function formatEvent(stored: StoredWebChatEvent): string {
  return `id: ${stored.id}\nevent: ${stored.event.type}\ndata: ${JSON.stringify(stored.event)}\n\n`;
}

/** The resume point: the `Last-Event-ID` header, else `?after=`, else `0` (all history). */
function resumePoint(req: IncomingMessage, url: URL): string {
  const header = req.headers['last-event-id'];
  const fromHeader = typeof header === 'string' && header.trim().length > 0 ? header.trim() : undefined;
  const value = fromHeader ?? url.searchParams.get('after') ?? '0';
  if (value !== '0' && !isStreamId(value)) {
    throw new SwitchboardError('http.bad_request', 'The resume point (Last-Event-ID or ?after=) must be a stream id such as 1700000000000-0, or 0.', {
      details: { field: fromHeader === undefined ? 'after' : 'Last-Event-ID' },
    });
  }
  return value;
}

/** Creates the SSE route of the web chat. */
export function createWebEventsRoute(options: WebEventsRouteOptions): Route {
  const { store, heartbeatMs } = options;
  const pageSize = options.pageSize ?? 500;
  return {
    method: 'GET',
    pattern: '/api/chat/:conversationId/events',
    async handler({ req, res, url, params }) {
      const session = await options.identity.require(req);
      const conversationId = params['conversationId'] ?? '';
      if (!isConversationId(conversationId)) {
        throw new SwitchboardError('http.bad_request', 'The conversation id must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-".', {
          details: { field: 'conversationId' },
        });
      }
      let lastSent = resumePoint(req, url);
      await options.identity.owners.claim(conversationId, session.identity);
      if (req.method === 'HEAD') {
        options.slots.check(session.identity);
        res.writeHead(200, SSE_HEADERS);
        res.end();
        return;
      }

      const release = options.slots.acquire(session.identity);
      // Mutated by callbacks, hence an object read through `isClosed()` (no narrowing across awaits).
      const stream: { closed: boolean; unsubscribe?: Unsubscribe; heartbeat?: NodeJS.Timeout } = { closed: false };
      const isClosed = (): boolean => stream.closed;
      const cleanup = (): void => {
        if (stream.closed) return;
        stream.closed = true;
        release();
        clearInterval(stream.heartbeat);
        if (stream.unsubscribe !== undefined) void stream.unsubscribe();
        if (!res.writableEnded) res.end();
      };
      res.on('close', cleanup);
      // The client may have gone during the awaits above, before there was a listener to tell.
      if (res.destroyed) cleanup();

      /** Sends an event unless it is not newer than the last one sent. */
      const send = (stored: StoredWebChatEvent): void => {
        if (stream.closed || compareStreamIds(stored.id, lastSent) <= 0) return;
        lastSent = stored.id;
        res.write(formatEvent(stored));
      };

      /** Sends a live event that follows the last one sent; `false` when events are missing before it. */
      const sendLive = (live: LiveWebChatEvent): boolean => {
        if (compareStreamIds(live.id, lastSent) <= 0) return true;
        if (live.previousId !== lastSent) return false;
        send(live);
        return true;
      };

      let buffering = true;
      let catchingUp = false;
      const buffered: LiveWebChatEvent[] = [];

      /**
       * Sends the stored events after `lastSent`, then the live events buffered meanwhile; reads
       * again when a buffered event shows that some were missed.
       */
      const catchUp = async (): Promise<void> => {
        if (catchingUp || stream.closed) return;
        catchingUp = true;
        buffering = true;
        try {
          let gap = true;
          while (gap && !isClosed()) {
            for (;;) {
              const page = await store.readAfter(conversationId, lastSent, pageSize);
              page.forEach(send);
              if (page.length < pageSize || isClosed()) break;
            }
            gap = false;
            for (let live = buffered.shift(); live !== undefined; live = buffered.shift()) {
              if (!sendLive(live)) {
                buffered.unshift(live);
                gap = true;
                break;
              }
            }
          }
          buffering = false;
        } catch {
          // Without the stored events, sending the buffered ones could skip some: end the stream
          // instead; the browser reconnects with Last-Event-ID and its catch-up fills the gap.
          cleanup();
        } finally {
          catchingUp = false;
        }
      };

      try {
        stream.unsubscribe = await store.subscribe(
          conversationId,
          (live) => {
            if (buffering) {
              buffered.push(live);
            } else if (!sendLive(live)) {
              buffered.push(live);
              void catchUp();
            }
          },
          // Back after Redis went away: what was published meanwhile is only in the stream.
          () => {
            void catchUp();
          },
        );
      } catch (thrown) {
        const error = asRequestError(thrown);
        if (!isClosed() && !res.headersSent) {
          res.setHeader('retry-after', String(REDIS_RETRY_AFTER_SECONDS));
          sendJson(res, 503, { error: { code: error.code, message: 'The event stream is unavailable. Try again.', details: { retryable: true } } });
        }
        cleanup();
        return;
      }
      if (isClosed()) {
        void stream.unsubscribe();
        return;
      }

      req.socket.setNoDelay(true);
      res.writeHead(200, SSE_HEADERS);
      res.write(`retry: ${RECONNECT_MS}\n\n`);

      stream.heartbeat = setInterval(() => {
        if (stream.closed || catchingUp) return;
        res.write(': heartbeat\n\n');
        void catchUp();
      }, heartbeatMs);
      stream.heartbeat.unref();
      await catchUp();
    },
  };
}
