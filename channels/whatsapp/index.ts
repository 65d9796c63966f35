/**
 * The WhatsApp channel: two transports behind one adaptor. `WHATSAPP_MODE=cloud`: the Business
 * Cloud API, signed webhooks in, the Graph API out, the 24-hour window with templates, approvals
 * by reply buttons. `WHATSAPP_MODE=web`: whatsapp-web.js driving WhatsApp Web as a linked device,
 * one session under the kit's lease, its QR code on `/admin/whatsapp`, approvals by short code.
 * Both: WhatsApp markup, media as artifacts, an intake that dedupes by message id.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { WhatsAppEnv } from '../../src/config/env-types.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { whatsAppApprovals } from './approvals.ts';
import { createCloudTransport } from './cloud/cloud-transport.ts';
import { createGraphClient } from './cloud/graph-client.ts';
import { whatsAppDoctor } from './doctor.ts';
import { cloudInbound, webInbound, type WhatsAppInbound } from './inbound.ts';
import { createWhatsAppIntake } from './intake.ts';
import { normaliseWhatsAppEvent } from './normalise.ts';
import { createWhatsAppRender } from './render.ts';
import { createWhatsAppSender } from './send.ts';
import { createServiceWindows } from './service-window.ts';
import type { WhatsAppTransport } from './transport.ts';
import { createWebClient } from './web/create-web-client.ts';
import type { WebClientFactory } from './web/web-client.ts';
import { createWebTransport } from './web/web-transport.ts';

/** Options of {@link createWhatsAppChannel}. */
export interface WhatsAppChannelOptions {
  /** Makes the whatsapp-web.js clients of web mode. Default {@link createWebClient} (the real `Client`). */
  readonly webClient?: WebClientFactory;
  /** Shows a new QR code of web mode in the terminal. Default: drawn on standard output. */
  readonly printQr?: (qr: string) => Promise<void>;
}

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
    const client = createGraphClient({ apiUrl: env.apiUrl, token: env.token, phoneNumberId: env.phoneNumberId });
    return { inbound: cloudInbound(env, client, intake, context), transport: createCloudTransport({ client, artifacts: context.artifacts }), close: () => Promise.resolve() };
  }
  const transport = createWebTransport({ redis: context.redis, prefix: context.prefix });
  return { inbound: webInbound(env, { factory: options.webClient ?? createWebClient, ...(options.printQr === undefined ? {} : { printQr: options.printQr }) }, intake, context), transport, close: () => transport.close() };
}

function createAdaptor(context: ChannelContext, options: WhatsAppChannelOptions): ChannelAdaptor {
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

/** Creates the WhatsApp channel module; tests give web mode a fake client factory. */
export function createWhatsAppChannel(options: WhatsAppChannelOptions = {}): ChannelModule {
  return {
    id: 'whatsapp',
    envVariables: ['WHATSAPP_MODE', 'WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN', 'WHATSAPP_API_URL', 'WHATSAPP_SESSION_DIR', 'CHROMIUM_PATH'],
    enabled: (env) => env.whatsapp !== undefined,
    create: (context) => Promise.resolve(createAdaptor(context, options)),
    doctor: (env) => whatsAppDoctor(env),
  };
}

/** The WhatsApp channel module, with the real whatsapp-web.js client for web mode. */
export const whatsappChannel: ChannelModule = createWhatsAppChannel();
