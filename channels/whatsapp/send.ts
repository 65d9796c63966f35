/**
 * The WhatsApp channel's sender: one transport call per rendered message. With the Cloud API, a
 * contact whose 24-hour window is closed gets the configured template instead of free text that
 * Meta would refuse (and so does one Meta says is outside it, error 131047); without a template
 * the delivery fails for good with a message that says what to configure.
 */
import { DeliveryError } from '../../queues/delivery-error.ts';
import type { ChannelSender, OutboundDelivery, SendIntent } from '../../queues/outbound-types.ts';
import type { WhatsAppTemplate } from '../../src/runtime/app/app-types.ts';
import { prefetchedRead } from '../kit/prefetched-read.ts';
import type { ServiceWindows } from './service-window.ts';
import type { WhatsAppOut, WhatsAppTransport } from './transport.ts';
import { readWhatsAppPayload, type WhatsAppPayload } from './whatsapp-payload.ts';

/** The templates of `channels.whatsapp.templates` in switchboard.yaml. */
export interface WhatsAppTemplates {
  readonly approval?: WhatsAppTemplate;
  readonly notice?: WhatsAppTemplate;
}

/** Options of {@link createWhatsAppSender}. */
export interface WhatsAppSenderOptions {
  readonly transport: WhatsAppTransport;
  readonly windows: Pick<ServiceWindows, 'isOpen'>;
  readonly templates: WhatsAppTemplates;
  readonly clock: () => Date;
}

/** Meta's error for a free-form message outside the customer-service window. */
const OUTSIDE_WINDOW = '131047';

/** The template message that stands in for `payload`, or a permanent error naming what to configure. */
export function templateFor(payload: WhatsAppPayload, templates: WhatsAppTemplates): WhatsAppOut {
  const approval = payload.kind === 'approval-request' && payload.quickReplies !== undefined ? templates.approval : undefined;
  const template = approval ?? templates.notice;
  if (template === undefined) {
    const which = payload.kind === 'approval-request' ? 'channels.whatsapp.templates.approval (or .notice)' : 'channels.whatsapp.templates.notice';
    throw new DeliveryError(
      `${payload.message.to} has not written in the last 24 hours, so WhatsApp takes only an approved template; set ${which} in switchboard.yaml.`,
      { permanent: true, providerCode: OUTSIDE_WINDOW },
    );
  }
  return {
    kind: 'template',
    to: payload.message.to,
    name: template.name,
    language: template.language,
    bodyParams: [payload.templateText],
    ...(approval === undefined || payload.quickReplies === undefined ? {} : { quickReplies: payload.quickReplies }),
  };
}

const isGroup = (to: string): boolean => to.endsWith('@g.us');

/** Creates the sender. */
export function createWhatsAppSender(options: WhatsAppSenderOptions): ChannelSender {
  const { transport } = options;
  // Web: the session holder's record of what it sent answers; the Cloud API cannot be asked.
  const find = transport.findSent;
  const cloud = transport.via === 'cloud';
  // Judged on the sender's clock, as the window is: a read older than its default age is made again.
  const windowOpen = prefetchedRead(async (delivery): Promise<boolean> => {
    const { to } = readWhatsAppPayload(delivery.payload).message;
    return !cloud || isGroup(to) || (await options.windows.isOpen(to, options.clock()));
  }, { now: () => options.clock().getTime() });
  return {
    // Cloud API: 80 messages a second per business number. Web: one a second, as a person would.
    rateLimit: cloud ? { max: 80, durationMs: 1000 } : { max: 1, durationMs: 1000 },
    // Cloud API: Meta's pair rate, about one message every 6 s to one person, with short bursts
    // (error 131056 past it): a reply of a few messages goes at once, a stream of them is spaced.
    ...(cloud ? { destinationRateLimit: { max: 10, durationMs: 60_000 } } : {}),
    ...(find === undefined ? {} : { findSent: (delivery: OutboundDelivery, intent: SendIntent) => find(delivery.idempotencyKey, intent) }),
    prefetch: windowOpen.start,
    async send(delivery) {
      const payload = readWhatsAppPayload(delivery.payload);
      const message = (await windowOpen.take(delivery)) ? payload.message : templateFor(payload, options.templates);
      try {
        const { id } = await transport.send(message, delivery.idempotencyKey);
        return { providerMessageId: id, details: { kind: message.kind, via: transport.via } };
      } catch (error) {
        if (!(error instanceof DeliveryError) || error.providerCode !== OUTSIDE_WINDOW || message.kind === 'template') throw error;
        // Meta knows the window better than our record of it: the template goes instead.
        const { id } = await transport.send(templateFor(payload, options.templates), `${delivery.idempotencyKey}#template`);
        return { providerMessageId: id, details: { kind: 'template', via: transport.via } };
      }
    },
  };
}
