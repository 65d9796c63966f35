/**
 * The web chat channel: the page, its message and action API and SSE stream, and the approval card. A
 * streaming channel whose sender appends to a Redis Stream per conversation, directly and in order.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { webDoctor } from './doctor.ts';
import { createWebRoutes } from './inbound.ts';
import { normaliseWebMessage } from './normalise.ts';
import { renderWebEvents } from './render.ts';
import { createWebSender } from './send.ts';
import { createDeliveredSurfaces } from './delivered-surfaces.ts';
import { createWebEventStore } from './stream/event-store.ts';
import { createEchoOrder } from './echo-order.ts';
import { keptSecret } from '../kit/kept-secret.ts';
import { SESSION_SECRET_PURPOSE } from './identity/session-cookie.ts';
import { createWebIdentity } from './identity/web-identity.ts';
import { isBrowserIdentity } from './identity/session-store.ts';
import type { StreamSlotLimits } from './stream/stream-slots.ts';

const WEB_ADDRESS_PREFIX = 'web:';

/** Options of {@link createWebChannelModule}. */
export interface WebChannelOptions {
  /**
   * Caps on the event streams one process holds open: `maxPerIdentity` per browser identity
   * (default 8), `maxTotal` in all (default 2000), `retryAfterSeconds` told to a refused client
   * (default 10). See `stream/stream-slots.ts`.
   */
  readonly streamLimits?: StreamSlotLimits;
}

async function createWebChannel(context: ChannelContext, options: WebChannelOptions): Promise<ChannelAdaptor> {
  const { logger } = context;
  const secret = await keptSecret({ redis: context.redis, prefix: context.prefix, purpose: SESSION_SECRET_PURPOSE, configured: context.env.sessionSecret });
  const store = createWebEventStore({ redis: context.redis, keyPrefix: context.prefix, onError: (error) => { logger.error({ err: error }, 'web event store'); } });
  // Written by the sender as surfaces are delivered, read by the action route.
  const surfaces = createDeliveredSurfaces({ redis: context.redis, prefix: context.prefix });
  // A posted message's echo goes into the stream before its turn's parts.
  const echoes = createEchoOrder();
  const sender = createWebSender(store, { surfaces, echoes });
  const identity = createWebIdentity({
    redis: context.redis,
    prefix: context.prefix,
    secret,
    publicUrl: context.env.publicUrl,
    people: context.app.people,
    clock: context.clock,
  });
  const routes = createWebRoutes({
    store,
    identity,
    logger,
    tenantId: context.tenantId,
    status: () => {
      const status = context.modelStatus();
      return { modelConfigured: status.configured, missing: status.missing };
    },
    enqueue: (injection, condition) => context.enqueue(injection, condition),
    surfaces,
    echoes,
    ...(options.streamLimits === undefined ? {} : { streamLimits: options.streamLimits }),
    decideApproval: ({ approvalId, decision, by, argsHash }) =>
      context.decide({ approvalId, decision, by, ...(argsHash === undefined ? {} : { argsHash }) }),
  });
  return {
    id: 'web',
    transport: 'streaming',
    outbound: 'direct',
    // The sender's writes (the surface record, the stream append) go over context.redis only.
    writesInOrder: true,
    routes,
    normalise: normaliseWebMessage,
    render: (input) => renderWebEvents(input, { artifactUrl: (artifactId) => context.artifactUrl(artifactId) }).map((event) => ({ ...event })),
    sender: {
      async send(delivery) {
        const { providerId } = await sender.send({ ...delivery, channel: 'web' });
        return { providerMessageId: providerId };
      },
    },
    approvals: {
      textReplies: false,
      // `web:<conversation id>` reaches that conversation. People in switchboard.yaml have no web
      // addresses (a browser proves a person by a sign-in link), and a browser identity
      // (`web:b_…`) is no conversation: web approvers see the card where the request was made.
      destinationFor: (approver) => {
        const address = approver.address.startsWith(WEB_ADDRESS_PREFIX) ? approver.address.slice(WEB_ADDRESS_PREFIX.length) : undefined;
        return address === undefined || isBrowserIdentity(address) ? undefined : { channel: 'web', address };
      },
    },
    close: () => store.close(),
  };
}

/**
 * The web chat channel with non-default options; pass it in `startService({ channels })` in place
 * of {@link webChannel}.
 *
 * @example
 * startService({ ...options, channels: [createWebChannelModule({ streamLimits: { maxPerIdentity: 4 } }), ...otherChannels] });
 */
export function createWebChannelModule(options: WebChannelOptions = {}): ChannelModule {
  return {
    id: 'web',
    envVariables: ['PUBLIC_URL', 'SESSION_SECRET'],
    enabled: () => true,
    create: (context) => createWebChannel(context, options),
    doctor: webDoctor,
  };
}

/** The web chat: always on, with the default options. */
export const webChannel: ChannelModule = createWebChannelModule();
