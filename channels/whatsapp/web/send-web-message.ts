/**
 * One {@link WhatsAppOut} sent through the session: a number's chat id looked up first (a number
 * not on WhatsApp is refused for good), files read from the artifact store (JPEG and PNG as
 * pictures, anything else as a document), the quoted message when one is named. Reply buttons and
 * templates are the Cloud API's: refused here for good.
 */
import { DeliveryError } from '../../../queues/delivery-error.ts';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import type { WhatsAppChat, WhatsAppOut } from '../transport.ts';
import type { WhatsAppWebClient } from './web-client.ts';
import { artifactMedia } from './web-media.ts';

/** What sending needs: the ready client and the artifacts to attach. */
export interface SendWebContext {
  readonly client: Pick<WhatsAppWebClient, 'sendMessage' | 'getNumberId'>;
  readonly artifacts: Pick<ArtifactStore, 'get'>;
}

const PICTURES = new Set(['image/jpeg', 'image/png']);
const E164 = /^\+([1-9][0-9]{1,14})$/;

/** The chat id of `to`: a group id as given, a number's id as WhatsApp knows it. */
async function chatIdOf(to: WhatsAppChat, client: SendWebContext['client']): Promise<string> {
  if (to.endsWith('@g.us')) return to;
  const digits = E164.exec(to)?.[1];
  if (digits === undefined) throw new DeliveryError(`${to} is neither an E.164 number nor a group id.`, { permanent: true, providerCode: 'invalid-recipient' });
  const id = await client.getNumberId(digits);
  if (id === null) throw new DeliveryError(`${to} is not on WhatsApp.`, { permanent: true, providerCode: 'not-on-whatsapp' });
  return id._serialized;
}

/**
 * Sends `message`; resolves with WhatsApp's message id.
 *
 * @throws {DeliveryError} permanent for buttons and templates, an unknown number or chat, a file
 *   that expired; retryable when the session fails to send.
 */
export async function sendWebMessage(message: WhatsAppOut, context: SendWebContext): Promise<{ readonly id: string }> {
  if (message.kind === 'buttons' || message.kind === 'template') {
    throw new DeliveryError(`WhatsApp Web cannot send ${message.kind === 'buttons' ? 'reply buttons' : 'templates'}; they are for WHATSAPP_MODE=cloud.`, {
      permanent: true,
      providerCode: 'unsupported-in-web-mode',
    });
  }
  const chatId = await chatIdOf(message.to, context.client);
  let sent: { readonly id: { readonly _serialized: string } } | undefined;
  if (message.kind === 'text') {
    sent = await context.client.sendMessage(chatId, message.text, message.quoteId === undefined ? {} : { quotedMessageId: message.quoteId });
  } else {
    const artifact = await context.artifacts.get(message.artifactId);
    if (artifact === undefined) throw new DeliveryError(`The file ${message.name} (artifact ${message.artifactId}) has expired.`, { permanent: true, providerCode: 'artifact-expired' });
    const media = artifactMedia(artifact, message.name);
    sent = await context.client.sendMessage(chatId, media, {
      sendMediaAsDocument: !PICTURES.has(artifact.meta.mimeType),
      ...(message.caption === undefined ? {} : { caption: message.caption }),
    });
  }
  if (sent === undefined) throw new DeliveryError(`WhatsApp Web has no chat ${chatId}.`, { permanent: true, providerCode: 'chat-not-found' });
  return { id: sent.id._serialized };
}
