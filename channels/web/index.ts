/**
 * The web chat channel: the page, its message API and SSE stream, and the approval card. A
 * streaming channel whose sender appends to a Redis Stream per conversation, directly and in order.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { webDoctor } from './doctor.ts';
import { createWebRoutes } from './inbound.ts';
import { normaliseWebMessage } from './normalise.ts';
import { renderWebEvents } from './render.ts';
import { createWebSender } from './send.ts';
import { createWebEventStore } from './stream/event-store.ts';

const WEB_ADDRESS_PREFIX = 'web:';

function createWebChannel(context: ChannelContext): Promise<ChannelAdaptor> {
  const { logger } = context;
  const store = createWebEventStore({ redis: context.redis, keyPrefix: context.prefix, onError: (error) => { logger.error({ err: error }, 'web event store'); } });
  const sender = createWebSender(store);
  const routes = createWebRoutes({
    store,
    tenantId: context.tenantId,
    status: () => {
      const status = context.modelStatus();
      return { modelConfigured: status.configured, missing: status.missing };
    },
    enqueue: (injection) => context.enqueue(injection),
    decideApproval: ({ approvalId, decision, conversationId, argsHash }) => {
      const address = `${WEB_ADDRESS_PREFIX}${conversationId}`;
      const person = context.app.people.find((candidate) => candidate.addresses.web.includes(address));
      return context.decide({
        approvalId,
        decision,
        by: { channel: 'web', address, ...(person === undefined ? {} : { personId: person.id }) },
        ...(argsHash === undefined ? {} : { argsHash }),
      });
    },
  });
  return Promise.resolve({
    id: 'web',
    transport: 'streaming',
    outbound: 'direct',
    routes,
    normalise: normaliseWebMessage,
    render: (input) => renderWebEvents(input).map((event) => ({ ...event })),
    sender: {
      async send(delivery) {
        const { providerId } = await sender.send({ ...delivery, channel: 'web' });
        return { providerMessageId: providerId };
      },
    },
    approvals: {
      textReplies: false,
      destinationFor: (approver) =>
        approver.address.startsWith(WEB_ADDRESS_PREFIX) ? { channel: 'web', address: approver.address.slice(WEB_ADDRESS_PREFIX.length) } : undefined,
    },
    close: () => store.close(),
  });
}

/** The web chat: always on. */
export const webChannel: ChannelModule = {
  id: 'web',
  envVariables: ['PUBLIC_URL'],
  enabled: () => true,
  create: createWebChannel,
  doctor: webDoctor,
};
