/**
 * The inspector: what happened in each conversation, for operators, behind the same access rule
 * as `/admin` (bearer `ADMIN_TOKEN`, or loopback clients only when it is unset).
 *
 * - `GET /admin/conversations?person=&address=&channel=&actor=&state=&from=&to=&cursor=&limit=`:
 *   recent conversations across channels, newest first, each linking to its timeline;
 * - `GET /admin/conversations/:id`: the timeline, one row per log entry, grouped by turn; live
 *   while the page is open (`GET /admin/conversations/:id/events`, see `timeline-stream.ts`);
 * - `GET /admin/conversations/:id/captures/:turnId/:step`: a captured model call in full;
 * - JSON twins: `GET /admin/api/conversations?…` (`{ items, next? }`),
 *   `GET /admin/api/conversations/:id` (`{ sessionId, summary?, entries, truncated, approvals }`)
 *   and `GET /admin/api/conversations/:id/captures/:turnId/:step` (`{ request, response }`).
 *
 * Bad parameters answer 400 naming the field; an unknown conversation or capture 404.
 */
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../../channels/kit/render/html-escape.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { authorize, type OperatorAccess } from '../../src/runtime/http/operator-access.ts';
import { sendJson, type HttpContext, type Route } from '../../src/runtime/http/router.ts';
import { renderCaptureBody } from './capture-page.ts';
import { renderConversationsBody } from './conversations-page.ts';
import type { CapturedCall } from '../../src/runtime/inspect/capture-store.ts';
import type { InspectorSources } from './inspector-sources.ts';
import { sendInspectorPage, TIMELINE_SCRIPT_PATH } from './page-shell.ts';
import { captureParams, FILTER_FIELDS, listRequest, sessionIdParam } from './query-params.ts';
import { sendTimelineScript } from './static-route.ts';
import { loadTimeline } from './timeline-data.ts';
import { renderTimelineBody } from './timeline-page.ts';
import { timelineStreamHandler, type StreamLimits } from './timeline-stream.ts';

/** Options of {@link createInspectorRoutes}. */
export interface InspectorRoutesOptions extends OperatorAccess {
  readonly sources: InspectorSources;
  /** Caps of the live timelines. */
  readonly streams?: StreamLimits;
}

function notFound(message: string): SwitchboardError {
  return new SwitchboardError('http.not_found', message);
}

/** The filters as given, cut short, for the form of a page that refused them. */
function rawFilters(params: URLSearchParams): Record<string, string> {
  return Object.fromEntries(FILTER_FIELDS.flatMap((name) => {
    const value = params.get(name);
    return value === null ? [] : [[name, value.slice(0, 200)]];
  }));
}

/** Answers a page request's bad parameter or missing thing as a page, anything else as the router would. */
function sendProblem(res: ServerResponse, error: unknown, head: boolean): boolean {
  if (!(error instanceof SwitchboardError) || (error.code !== 'http.bad_request' && error.code !== 'http.not_found')) return false;
  const status = error.code === 'http.bad_request' ? 400 : 404;
  sendInspectorPage(res, { title: status === 400 ? 'Bad request' : 'Not found', status, body: `<h1>${status === 400 ? 'Bad request' : 'Not found'}</h1><p class="error" role="alert">${escapeHtml(error.message)}</p>` }, head);
  return true;
}

/** Creates the routes. */
export function createInspectorRoutes(options: InspectorRoutesOptions): Route[] {
  const { sources } = options;
  const stream = timelineStreamHandler(sources, options.streams);
  const guarded = (method: Route['method'], pattern: string, handle: (context: HttpContext) => Promise<void>): Route => ({
    method,
    pattern,
    async handler(context) {
      if (!authorize(context.req, context.res, options)) return;
      await handle(context);
    },
  });
  const page = (pattern: string, handle: (context: HttpContext, head: boolean) => Promise<void>): Route =>
    guarded('GET', pattern, async (context) => {
      const head = context.req.method === 'HEAD';
      try {
        await handle(context, head);
      } catch (error) {
        if (!sendProblem(context.res, error, head)) throw error;
      }
    });
  const capture = async ({ params }: HttpContext): Promise<{ sessionId: string; turnId: string; step: number; captured: CapturedCall }> => {
    const sessionId = sessionIdParam(params['id']);
    const { turnId, step } = captureParams(params['turnId'], params['step']);
    const captured = await sources.captures?.read(sessionId, turnId, step);
    if (captured === undefined) throw notFound(`No captured model call for turn ${JSON.stringify(turnId)}, step ${String(step)}: capture may be off, or it was not kept.`);
    return { sessionId, turnId, step, captured };
  };

  return [
    page('/admin/conversations', async ({ res, url }, head) => {
      let request: ReturnType<typeof listRequest>;
      try {
        request = listRequest(url.searchParams);
      } catch (error) {
        if (!(error instanceof SwitchboardError)) throw error;
        sendInspectorPage(res, { title: 'Conversations', status: 400, body: renderConversationsBody(rawFilters(url.searchParams), { error: error.message }) }, head);
        return;
      }
      const found = await sources.conversations.search(request.query);
      sendInspectorPage(res, { title: 'Conversations', body: renderConversationsBody(request.filters, { page: found }) }, head);
    }),
    page('/admin/conversations/:id', async ({ res, params }, head) => {
      const sessionId = sessionIdParam(params['id']);
      const data = await loadTimeline(sources, sessionId);
      if (data === undefined) throw notFound(`No conversation ${JSON.stringify(sessionId)}: neither the index nor the event log knows it.`);
      const live = sources.follow !== undefined;
      sendInspectorPage(res, { title: `Conversation ${sessionId}`, live, body: renderTimelineBody(data, { live, captures: sources.captures !== undefined }) }, head);
    }),
    page('/admin/conversations/:id/captures/:turnId/:step', async (context, head) => {
      const { sessionId, turnId, step, captured } = await capture(context);
      sendInspectorPage(context.res, { title: `Model call ${turnId} step ${String(step)}`, body: renderCaptureBody(sessionId, turnId, step, captured) }, head);
    }),
    guarded('GET', '/admin/conversations/:id/events', async (context) => {
      await stream(context, sessionIdParam(context.params['id']));
    }),
    guarded('GET', TIMELINE_SCRIPT_PATH, ({ req, res }) => sendTimelineScript(res, req.method === 'HEAD')),
    guarded('GET', '/admin/api/conversations', async ({ res, url }) => {
      const found = await sources.conversations.search(listRequest(url.searchParams).query);
      res.setHeader('cache-control', 'no-store');
      sendJson(res, 200, found);
    }),
    guarded('GET', '/admin/api/conversations/:id', async ({ res, params }) => {
      const sessionId = sessionIdParam(params['id']);
      const data = await loadTimeline(sources, sessionId);
      if (data === undefined) throw notFound(`No conversation ${JSON.stringify(sessionId)}: neither the index nor the event log knows it.`);
      res.setHeader('cache-control', 'no-store');
      sendJson(res, 200, { sessionId, ...(data.summary === undefined ? {} : { summary: data.summary }), entries: data.entries, truncated: data.truncated, approvals: [...data.approvals.values()] });
    }),
    guarded('GET', '/admin/api/conversations/:id/captures/:turnId/:step', async (context) => {
      const { captured } = await capture(context);
      context.res.setHeader('cache-control', 'no-store');
      sendJson(context.res, 200, captured);
    }),
  ];
}
