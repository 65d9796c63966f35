/**
 * All HTTP routes of the web chat channel, as plain route objects for the server to mount.
 */

import type { Injection } from '../../src/runtime/injection.ts';
import { sendJson, type Route } from '../../src/runtime/http/router.ts';
import { createWebApprovalRoute, type WebApprovalDecision } from './approvals.ts';
import type { DecisionOutcome } from '../../src/runtime/approvals/approval-types.ts';
import { createWebEventsRoute } from './events-route.ts';
import type { WebEventStore } from './stream/event-store.ts';
import { createWebMessageRoute } from './message-route.ts';
import { createWebPageRoutes } from './page-routes.ts';

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
  /**
   * Durably enqueues an inbound message. Resolves `duplicate: true` when an injection with the
   * same id was enqueued before; rejects when it could not be enqueued (the POST then answers 503).
   */
  readonly enqueue: (injection: Injection) => Promise<{ duplicate: boolean }>;
  /** The tenant stamped on every injection. */
  readonly tenantId: string;
  /** The configuration facts shown to the page by `GET /api/chat/config`. */
  readonly status: () => WebChatStatus;
  /** The time source for `receivedAt`. Default `() => new Date()`. */
  readonly clock?: () => Date;
  /** Milliseconds between SSE heartbeat comments (each also runs a catch-up read). Default 15000. */
  readonly heartbeatMs?: number;
  /**
   * Takes a decision from the approval card. When given, `POST /api/approvals/:approvalId` is
   * mounted (see `createWebApprovalRoute`); without it the route is absent.
   */
  readonly decideApproval?: (input: WebApprovalDecision) => Promise<DecisionOutcome>;
}

/**
 * Creates the web chat routes:
 * - `GET /` the chat page, `GET /static/:file` its scripts and styles;
 * - `GET /api/chat/config`: `{ modelConfigured, missing }`;
 * - `POST /api/chat/:conversationId/messages`: `{ text, id? }`, 202 `{ id, duplicate }` once enqueued;
 * - `GET /api/chat/:conversationId/events`: the conversation's events as Server-Sent Events,
 *   resuming after `Last-Event-ID` or `?after=`;
 * - `POST /api/approvals/:approvalId`: `{ decision, conversationId? }`, only with `decideApproval`.
 *
 * @example
 * const server = createServer(createRouter([...createWebRoutes({ store, enqueue, tenantId: 'default',
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
  return [
    ...createWebPageRoutes(),
    configRoute,
    createWebMessageRoute({
      store: options.store,
      enqueue: options.enqueue,
      tenantId: options.tenantId,
      clock: options.clock ?? (() => new Date()),
    }),
    createWebEventsRoute({ store: options.store, heartbeatMs: options.heartbeatMs ?? 15_000 }),
    ...(options.decideApproval === undefined ? [] : [createWebApprovalRoute({ decide: options.decideApproval })]),
  ];
}
