/**
 * All HTTP routes of the web chat channel, as plain route objects for the server to mount.
 */

import type { EchoOrder } from './echo-order.ts';
import type { WebEnqueue } from './post-answers.ts';
import { sendJson, type Route } from '../../src/runtime/http/router.ts';
import { createWebApprovalRoute, type WebApprovalDecision, type WebRoutesLogger } from './approvals.ts';
import type { DecisionOutcome } from '../../src/runtime/approvals/approval-types.ts';
import { createWebEventsRoute } from './events-route.ts';
import { createStreamSlots, type StreamSlotLimits } from './stream/stream-slots.ts';
import type { WebEventStore } from './stream/event-store.ts';
import { createWebMessageRoute } from './message-route.ts';
import { createWebActionRoute } from './action-route.ts';
import type { DeliveredSurfaces } from './delivered-surfaces.ts';
import { createWebPageRoutes } from './page-routes.ts';
import { createSessionRoute } from './identity/session-route.ts';
import { createSignInRoute } from './identity/sign-in-route.ts';
import type { WebIdentity } from './identity/web-identity.ts';

/** What the page is told about the service's configuration. */
export interface WebChatStatus {
  /** Whether a model endpoint is configured (an API key is present). */
  readonly modelConfigured: boolean;
  /** Names of the missing environment variables, e.g. `['ANTHROPIC_API_KEY']`. */
  readonly missing?: readonly string[];
}

/** Options of {@link createWebRoutes}. */
export interface WebRoutesOptions {
  /** The conversation event streams. */
  readonly store: WebEventStore;
  /** Who each request comes from: sessions, CSRF, conversation owners, sign-in links. */
  readonly identity: WebIdentity;
  /** Refused approval answers and surface actions are logged here. Default: not logged. */
  readonly logger?: WebRoutesLogger;
  /**
   * Durably enqueues an inbound message. Resolves `duplicate: true` when an injection with the
   * same id was enqueued before, `lapsed: true` when its condition (the session still there) was
   * not met; rejects when it could not be enqueued (the POST then answers 503).
   */
  readonly enqueue: WebEnqueue;
  /** The tenant stamped on every injection. */
  readonly tenantId: string;
  /** The configuration facts shown to the page by `GET /api/chat/config`. */
  readonly status: () => WebChatStatus;
  /** The time source for `receivedAt`. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Milliseconds between SSE heartbeat comments (each also runs a catch-up read). Default 15000. */
  readonly heartbeatMs?: number;
  /**
   * Caps on open event streams, per browser identity (default 8) and in all (default 2000), counted
   * by these routes, i.e. per process; see `stream/stream-slots.ts`.
   */
  readonly streamLimits?: StreamSlotLimits;
  /**
   * Takes a decision from the approval card. When given, `POST /api/approvals/:approvalId` is
   * mounted (see `createWebApprovalRoute`); without it the route is absent.
   */
  readonly decideApproval?: (input: WebApprovalDecision) => Promise<DecisionOutcome>;
  /**
   * The surfaces delivered to each conversation (the same record the web sender writes). When
   * given, `POST /api/chat/:conversationId/actions` is mounted (see `createWebActionRoute`);
   * without it the route is absent.
   */
  readonly surfaces?: DeliveredSurfaces;
  /**
   * Where a posted message's echo is owed until it was sent, for the sender to deliver its turn's
   * parts after it (see `echo-order.ts`). Default: not noted.
   */
  readonly echoes?: EchoOrder;
}

/**
 * Creates the web chat routes:
 * - `GET /` the chat page, `GET /static/:file` its scripts and styles;
 * - `GET /api/chat/session`: sets the signed `sb_session` cookie when absent, answers
 *   `{ identity, person?, csrfToken }`;
 * - `GET /signin/:token`: a one-time sign-in link; signs the browser in as its person;
 * - `GET /api/chat/config`: `{ modelConfigured, missing }`;
 * - `POST /api/chat/:conversationId/messages`: `{ text, id? }`, 202 `{ id, duplicate }` once enqueued;
 * - `POST /api/chat/:conversationId/actions`: `{ id, surfaceId, sourceComponentId?, name, context? }`,
 *   a Button of a delivered surface pressed, 202 `{ id, duplicate }` once enqueued; only with `surfaces`;
 * - `GET /api/chat/:conversationId/events`: the conversation's events as Server-Sent Events,
 *   resuming after `Last-Event-ID` or `?after=`; 429 over the open-stream caps;
 * - `POST /api/approvals/:approvalId`: `{ decision, conversationId? }`, only with `decideApproval`.
 *
 * Every `/api/chat/*` route but `session` and `config`, and the approval route, needs the session
 * cookie (401 without); POSTs need the CSRF token and this service's origin (403), and a
 * conversation answers only its owner (403).
 *
 * @example
 * const server = createServer(createRouter([...createWebRoutes({ store, identity, enqueue, tenantId: 'default',
 *   status: () => ({ modelConfigured: true }) }), ...otherRoutes]));
 */
export function createWebRoutes(options: WebRoutesOptions): Route[] {
  const configRoute: Route = {
    method: 'GET',
    pattern: '/api/chat/config',
    handler: ({ res }) => {
      const status = options.status();
      sendJson(res, 200, { modelConfigured: status.modelConfigured, missing: status.missing ?? [] });
      return Promise.resolve();
    },
  };
  const { identity } = options;
  const clock = options.clock ?? (() => new Date());
  const logged = options.logger === undefined ? {} : { logger: options.logger };
  return [
    ...createWebPageRoutes(),
    createSessionRoute(identity),
    createSignInRoute(identity),
    configRoute,
    createWebMessageRoute({
      store: options.store,
      identity,
      enqueue: options.enqueue,
      tenantId: options.tenantId,
      clock,
      ...(options.echoes === undefined ? {} : { echoes: options.echoes }),
    }),
    ...(options.surfaces === undefined
      ? []
      : [createWebActionRoute({ identity, surfaces: options.surfaces, enqueue: options.enqueue, tenantId: options.tenantId, clock, ...logged })]),
    createWebEventsRoute({ store: options.store, identity, heartbeatMs: options.heartbeatMs ?? 15_000, slots: createStreamSlots(options.streamLimits) }),
    ...(options.decideApproval === undefined
      ? []
      : [createWebApprovalRoute({ decide: options.decideApproval, identity, ...logged })]),
  ];
}
