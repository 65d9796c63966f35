/** What a test or an embedding program may change in the whatsapp channel; see `index.ts`. */
import type { WebClientFactory } from './web/web-client.ts';

/** Options of `createWhatsAppChannel`. */
export interface WhatsAppChannelOptions {
  /** Makes the whatsapp-web.js clients of web mode. Default the real whatsapp-web.js `Client` (`web/create-web-client.ts`). */
  readonly webClient?: WebClientFactory;
  /** Shows a new QR code of web mode in the terminal. Default: drawn on standard output. */
  readonly printQr?: (qr: string) => Promise<void>;
}
