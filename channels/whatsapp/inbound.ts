/**
 * How WhatsApp messages come in, per transport: the Cloud API's signed webhooks (routes, in web
 * processes), or the whatsapp-web.js session (a singleton listener, in worker processes) with its
 * operator page. Both hand their events to one intake (`intake.ts`).
 */
import type { ChannelContext, ChannelListener } from '../channel.ts';
import type { WhatsAppCloudEnv, WhatsAppWebEnv } from '../../src/config/env-types.ts';
import type { Route } from '../../src/runtime/http/router.ts';
import { createCloudRoutes } from './cloud/cloud-routes.ts';
import type { GraphClient } from './cloud/graph-client.ts';
import { createCloudStatuses } from './cloud/statuses.ts';
import { createWhatsAppAdminRoutes } from './web/admin-page.ts';
import { createLinkStateStore } from './web/link-state.ts';
import type { WebClientFactory } from './web/web-client.ts';
import { createWebListener } from './web/web-listener.ts';
import type { WhatsAppIntake } from './whatsapp-event.ts';

/** What comes in: routes to mount, and a listener to run. */
export interface WhatsAppInbound {
  readonly routes: readonly Route[];
  readonly listener?: ChannelListener;
}

/** The Cloud API webhook routes, statuses kept under `<prefix>:whatsapp:cloud`. */
export function cloudInbound(env: WhatsAppCloudEnv, client: GraphClient, intake: WhatsAppIntake, context: ChannelContext): WhatsAppInbound {
  const statuses = createCloudStatuses({ redis: context.redis, prefix: `${context.prefix}:whatsapp:cloud` });
  const routes = createCloudRoutes({
    appSecret: env.appSecret,
    verifyToken: env.verifyToken,
    phoneNumberId: env.phoneNumberId,
    intake,
    statuses,
    media: { client, artifacts: context.artifacts },
    logger: context.logger,
    clock: context.clock,
    ...(context.reportDeliveryStatus === undefined ? {} : { onStatus: (report) => context.reportDeliveryStatus?.(report) ?? Promise.resolve() }),
  });
  return { routes };
}

/** How web mode's sessions are made and their QR codes shown. */
export interface WebSessionOptions {
  readonly factory: WebClientFactory;
  /** Default: drawn on standard output. */
  readonly printQr?: (qr: string) => Promise<void>;
}

/** The whatsapp-web.js session as a singleton listener, and its operator page. */
export function webInbound(env: WhatsAppWebEnv, session: WebSessionOptions, intake: WhatsAppIntake, context: ChannelContext): WhatsAppInbound {
  const linkState = createLinkStateStore({ redis: context.redis, prefix: context.prefix, clock: context.clock });
  const listener = createWebListener({
    ...session,
    env,
    redis: context.redis,
    prefix: context.prefix,
    intake,
    artifacts: context.artifacts,
    logger: context.logger,
    clock: context.clock,
    groups: context.app.channels.whatsapp.groups ?? 'mentions',
  });
  return { routes: createWhatsAppAdminRoutes({ linkState, adminToken: context.env.adminToken, trustProxy: context.env.trustProxy }), listener };
}
