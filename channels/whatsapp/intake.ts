/**
 * The one way into the channel for both transports: the contact's window noted, the event
 * normalised and durably enqueued (a repeated message id is dropped there).
 */
import type { Logger } from 'pino';
import type { Injection } from '../../src/runtime/injection.ts';
import type { ServiceWindows } from './service-window.ts';
import type { WhatsAppIntake } from './whatsapp-event.ts';

/** Options of {@link createWhatsAppIntake}. */
export interface WhatsAppIntakeOptions {
  readonly normalise: (event: unknown) => Injection;
  readonly enqueue: (injection: Injection) => Promise<{ readonly duplicate: boolean }>;
  readonly windows: Pick<ServiceWindows, 'noteInbound'>;
  readonly logger: Pick<Logger, 'info' | 'debug'>;
}

/** Creates the intake. A malformed event throws `channel.invalid` before anything is written. */
export function createWhatsAppIntake(options: WhatsAppIntakeOptions): WhatsAppIntake {
  return {
    async take(event) {
      const injection = options.normalise(event);
      // The person's own message opens their window, whatever happens to it next. Noted in the
      // enqueue's tick, ahead of it (one socket write, one round trip; Redis runs them in that
      // order, so the answer's send sees the window): a failure of either fails the webhook, Meta
      // delivers it again, and a second note or a repeated enqueue changes nothing.
      const opensWindow = event.type === 'whatsapp-approval' || event.group === undefined;
      const [, result] = await Promise.all([
        opensWindow ? options.windows.noteInbound(event.from, new Date(event.receivedAt)) : undefined,
        options.enqueue(injection),
      ]);
      options.logger[result.duplicate ? 'debug' : 'info']({ channel: 'whatsapp', injection: injection.id, duplicate: result.duplicate }, 'whatsapp: message taken');
      return result;
    },
  };
}
