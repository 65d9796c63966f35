/**
 * The WhatsApp channel: two transports behind one adaptor. `WHATSAPP_MODE=cloud`: the Business
 * Cloud API, signed webhooks in, the Graph API out, the 24-hour window with templates, approvals
 * by reply buttons. `WHATSAPP_MODE=web`: whatsapp-web.js driving WhatsApp Web as a linked device,
 * one session under the kit's lease, its QR code on `/admin/whatsapp`, approvals by short code.
 * Both: WhatsApp markup, media as artifacts, an intake that dedupes by message id.
 */
import type { ChannelModule } from '../channel.ts';
import type { WhatsAppChannelOptions } from './options.ts';

export type { WhatsAppChannelOptions } from './options.ts';

/** Creates the WhatsApp channel module; tests give web mode a fake client factory. */
export function createWhatsAppChannel(options: WhatsAppChannelOptions = {}): ChannelModule {
  return {
    id: 'whatsapp',
    envVariables: ['WHATSAPP_MODE', 'WHATSAPP_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN', 'WHATSAPP_API_URL', 'WHATSAPP_SESSION_DIR', 'CHROMIUM_PATH'],
    enabled: (env) => env.whatsapp !== undefined,
    // The adaptor and its libraries load only when the channel is on (see channels/registry.ts).
    create: async (context) => (await import('./adaptor.ts')).createWhatsAppAdaptor(context, options),
    doctor: async (env) => (await import('./doctor.ts')).whatsAppDoctor(env),
  };
}

/** The WhatsApp channel module, with the real whatsapp-web.js client for web mode. */
export const whatsappChannel: ChannelModule = createWhatsAppChannel();
