/**
 * The inspector's routes on a running service: the conversation index and the capture store
 * read from the service's Redis under its prefix, the session log, the approval store, and a
 * follower of each open timeline on a connection of its own.
 */
import { createCaptureStore } from '../../src/runtime/inspect/capture-store.ts';
import { createConversationIndex } from '../../src/runtime/inspect/conversation-index.ts';
import type { Route } from '../../src/runtime/http/router.ts';
import type { ServiceCore } from '../service-core.ts';
import { createInspectorRoutes } from './inspector-routes.ts';
import { redisLogFollowers } from './log-follower.ts';

/** The inspector routes of the web role, guarded like `/admin`. */
export function inspectorRoutes(core: Pick<ServiceCore, 'redis' | 'prefix' | 'eventLog' | 'approvals' | 'env'>): Route[] {
  const { redis, prefix, env } = core;
  return createInspectorRoutes({
    sources: {
      conversations: createConversationIndex({ redis, prefix }),
      eventLog: core.eventLog,
      approvals: core.approvals,
      captures: createCaptureStore({ redis, prefix }),
      follow: redisLogFollowers(redis, prefix),
    },
    adminToken: env.adminToken,
    trustProxy: env.trustProxy,
  });
}
