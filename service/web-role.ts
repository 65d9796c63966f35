/**
 * The web role: one HTTP server with every channel's routes, the operator pages and the
 * operational endpoints.
 */
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../src/protocol/errors.ts';
import { createHttpServer } from '../src/runtime/http/http-server.ts';
import { authorize } from '../src/runtime/http/operator-access.ts';
import { createRouter, type Route } from '../src/runtime/http/router.ts';
import { createArtifactRoutes } from '../src/runtime/artifacts/artifact-urls.ts';
import { createDeliveryFailures } from '../queues/delivery-failures.ts';
import { createInviteRoute } from '../channels/web/identity/invite-route.ts';
import { createAdminRoutes } from './admin-routes.ts';
import { budgetsSnapshot } from './budget-wiring.ts';
import { inspectorRoutes } from './inspector/inspector-wiring.ts';
import { createOpsRoutes } from './ops-routes.ts';
import { createSenderAdminRoutes, renderSendersSection } from './sender-admin-routes.ts';
import type { ServiceCore } from './service-core.ts';

function adminRoutes(core: ServiceCore): Route[] {
  const { sessions, queueStats, env } = core;
  const failures = createDeliveryFailures({ redis: core.redis, prefix: core.prefix });
  const invites = createInviteRoute({
    links: { redis: core.redis, prefix: core.prefix, publicUrl: env.publicUrl },
    people: core.app.people,
    authorize: (req, res) => authorize(req, res, { adminToken: env.adminToken, trustProxy: env.trustProxy }),
  });
  const budgets = budgetsSnapshot(core);
  const senders = createSenderAdminRoutes({ senders: core.senders, adminToken: env.adminToken, trustProxy: env.trustProxy });
  return [invites, ...senders, ...createAdminRoutes({
    approvals: core.approvals,
    extraSections: () => renderSendersSection(core.senders),
    ...(budgets === undefined ? {} : { budgets }),
    failures: (query) => failures.list(query),
    adminToken: env.adminToken,
    trustProxy: env.trustProxy,
    operations: async () => ({
      queues: await queueStats.counts(),
      sessions: (await sessions.activeTurns()).map((turn) => ({
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        actor: turn.actor,
        status: turn.status,
        startedAt: turn.startedAt,
        ...(turn.wait === undefined ? {} : { waitingFor: `${turn.wait.turnState}${turn.wait.ref === undefined ? '' : ` ${turn.wait.ref}`} until ${turn.wait.until}` }),
      })),
    }),
  })];
}

/** Starts the HTTP server; resolves to its base URL and what closes it. */
export async function startWebRole(core: ServiceCore): Promise<{ url: string; close: () => Promise<void> }> {
  const { env, logger } = core;
  const routes: Route[] = [
    ...core.channels.routes,
    ...createArtifactRoutes({ store: core.artifacts, secret: core.artifactSecret }),
    ...adminRoutes(core),
    ...inspectorRoutes(core),
    ...createOpsRoutes({ redis: core.redis, metrics: core.metrics, env, app: core.app, actors: [...core.actors.values()].map((actor) => actor.config), adminToken: env.adminToken, trustProxy: env.trustProxy }),
  ];
  const router = createRouter(routes, (error, context) => { logger.warn({ err: error, path: context.url.pathname }, 'request failed'); });
  const server = createHttpServer(router, core.options.http);
  const wanted = core.options.port ?? env.port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE' && error.code !== 'EACCES') {
        reject(error);
        return;
      }
      const why = error.code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
      reject(new SwitchboardError('config.invalid', `Port ${String(wanted)} ${why} (${error.code}): set PORT to a free port, or stop what listens there.`, { cause: error, details: { variable: 'PORT', port: wanted } }));
    });
    server.listen(wanted, () => { resolve(); });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => { resolve(); });
      }),
  };
}
