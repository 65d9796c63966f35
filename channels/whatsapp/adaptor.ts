/**
 * The WhatsApp adaptor: the transport of the configured mode (Cloud API or a whatsapp-web.js
 * session), the intake, the renderer and the sender. `index.ts` loads this file (and with it
 * whatsapp-web.js and puppeteer) only when the channel is on.
 */
import type { ChannelAdaptor, ChannelContext } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { WhatsAppEnv } from '../../src/config/env-types.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { whatsAppApprovals } from './approvals.ts';
import { createCloudTransport } from './cloud/cloud-transport.ts';
import { createCloudStatuses } from './cloud/statuses.ts';
import { createGraphClient } from './cloud/graph-client.ts';
import { createKeepAliveFetch } from '../kit/keep-alive-fetch.ts';
import { cloudInbound, webInbound, type WhatsAppInbound } from './inbound.ts';
import { createWhatsAppIntake } from './intake.ts';
import { normaliseWhatsAppEvent } from './normalise.ts';
import { createWhatsAppRender } from './render.ts';
import { createWhatsAppSender } from './send.ts';
import { createServiceWindows } from './service-window.ts';
import type { WhatsAppTransport } from './transport.ts';
import { createWebClient } from './web/create-web-client.ts';
import { createWebTransport } from './web/web-transport.ts';
import type { WhatsAppChannelOptions } from './options.ts';

function whatsAppEnvOf(context: ChannelContext): WhatsAppEnv {
  const { whatsapp } = context.env;
  if (whatsapp === undefined) throw new SwitchboardError('config.invalid', 'The WhatsApp channel needs WHATSAPP_MODE.');
  return whatsapp;
}

interface Transport {
  readonly inbound: WhatsAppInbound;
  readonly transport: WhatsAppTransport;
  /** Closes what the transport opened (web mode's blocking connections). */
  readonly close: () => Promise<void>;
}

function transportOf(env: WhatsAppEnv, options: WhatsAppChannelOptions, intake: ReturnType<typeof createWhatsAppIntake>, context: ChannelContext): Transport {
  if (env.mode === 'cloud') {
    const keepAlive = createKeepAliveFetch();
    const client = createGraphClient({ apiUrl: env.apiUrl, token: env.token, phoneNumberId: env.phoneNumberId, fetch: keepAlive.fetch });
    const statuses = createCloudStatuses({ redis: context.redis, prefix: `${context.prefix}:whatsapp:cloud` });
    const close = (): Promise<void> => {
      keepAlive.close();
      return Promise.resolve();
    };
    return { inbound: cloudInbound(env, client, intake, context), transport: createCloudTransport({ client, artifacts: context.artifacts, statuses }), close };
  }
  const transport = createWebTransport({ redis: context.redis, prefix: context.prefix });
  return { inbound: webInbound(env, { factory: options.webClient ?? createWebClient, ...(options.printQr === undefined ? {} : { printQr: options.printQr }) }, intake, context), transport, close: () => transport.close() };
}

/** Creates the WhatsApp adaptor (cloud or web mode) from the environment and the service's context. */
export function createWhatsAppAdaptor(context: ChannelContext, options: WhatsAppChannelOptions): ChannelAdaptor {
  const env = whatsAppEnvOf(context);
  const windowsPrefix = `${context.prefix}:whatsapp:${env.mode === 'cloud' ? env.phoneNumberId : 'web'}`;
  const windows = createServiceWindows({ redis: context.redis, prefix: windowsPrefix });
  const normalise = (event: unknown): Injection => normaliseWhatsAppEvent(event, { people: context.app.people, tenantId: context.tenantId });
  const intake = createWhatsAppIntake({ normalise, enqueue: (injection) => context.enqueue(injection), windows, logger: context.logger });
  const { inbound, transport, close } = transportOf(env, options, intake, context);
  return {
    id: 'whatsapp',
    transport: 'buffered',
    outbound: 'queue',
    routes: inbound.routes,
    ...(inbound.listener === undefined ? {} : { listener: inbound.listener }),
    normalise,
    render: createWhatsAppRender({ via: env.mode, clock: context.clock }),
    sender: createWhatsAppSender({ transport, windows, templates: context.app.channels.whatsapp.templates ?? {}, clock: context.clock }),
    approvals: whatsAppApprovals,
    close,
  };
}
