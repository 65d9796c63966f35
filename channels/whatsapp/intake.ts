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
      // The person's own message opens their window, whatever happens to it next.
      if (event.type === 'whatsapp-approval' || event.group === undefined) await options.windows.noteInbound(event.from, new Date(event.receivedAt));
      const result = await options.enqueue(injection);
      options.logger[result.duplicate ? 'debug' : 'info']({ channel: 'whatsapp', injection: injection.id, duplicate: result.duplicate }, 'whatsapp: message taken');
      return result;
    },
  };
}
