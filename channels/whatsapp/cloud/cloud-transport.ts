/**
 * The Cloud API transport: each `WhatsAppOut` as one Graph API message (`outbound-body.ts`); a
 * medium read from the artifact store and uploaded first. The Cloud API has no idempotency key and
 * no list of sent messages: each message carries the delivery's tag (sha256 of `idempotencyKey`)
 * as `biz_opaque_callback_data`, which Meta returns only in the message's status webhooks; a send
 * whose outcome was lost is looked for among the tags those webhooks left (`find-sent.ts`). The
 * outbound queue's ledger keeps a delivery from being sent twice.
 */
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { deliveryTag } from '../../../queues/sent-lookup.ts';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import type { WhatsAppMediaOut, WhatsAppOut, WhatsAppTransport } from '../transport.ts';
import { createCloudFindSent } from './find-sent.ts';
import type { GraphClient, GraphMessage } from './graph-client.ts';
import type { CloudStatuses } from './statuses.ts';
import { cloudRecipient } from './outbound-limits.ts';
import { buttonsBody, checkCaption, mediaBody, templateBody, textBody } from './outbound-body.ts';

/** Options of {@link createCloudTransport}. */
export interface CloudTransportOptions {
  readonly client: Pick<GraphClient, 'sendMessage' | 'uploadMedia'>;
  readonly artifacts: Pick<ArtifactStore, 'get'>;
  /** Where status webhooks leave the tags of sent messages: a lost send is looked for there. Default: no look-up. */
  readonly statuses?: Pick<CloudStatuses, 'wamidOfTag'>;
}

/** Reads the artifact, uploads it, and gives the message that sends it. */
async function uploadedMediaBody(out: WhatsAppMediaOut, options: CloudTransportOptions): Promise<GraphMessage> {
  cloudRecipient(out.to);
  checkCaption(out.caption);
  const artifact = await options.artifacts.get(out.artifactId);
  if (artifact === undefined) throw new DeliveryError(`Not sent: the file ${out.name} (artifact ${out.artifactId}) has expired or never existed.`, { permanent: true });
  const { meta } = artifact;
  const mediaId = await options.client.uploadMedia({ bytes: artifact.bytes, mimeType: meta.mimeType, name: out.name });
  return mediaBody({
    to: out.to, mediaId, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes, name: out.name,
    ...(out.caption === undefined ? {} : { caption: out.caption }),
  });
}

/** The Graph message of `out`. */
async function bodyOf(out: WhatsAppOut, options: CloudTransportOptions): Promise<GraphMessage> {
  switch (out.kind) {
    case 'text': return textBody(out);
    case 'media': return uploadedMediaBody(out, options);
    case 'buttons': return buttonsBody(out);
    case 'template': return templateBody(out);
  }
}

/**
 * Creates the transport.
 *
 * @example
 * const transport = createCloudTransport({ client: createGraphClient(env), artifacts });
 * const { id } = await transport.send({ kind: 'text', to: '+447700900123', text: 'Hello' }, key); // id: 'wamid.…'
 */
export function createCloudTransport(options: CloudTransportOptions): WhatsAppTransport {
  return {
    via: 'cloud',
    ...(options.statuses === undefined ? {} : { findSent: createCloudFindSent({ statuses: options.statuses }) }),
    async send(message, idempotencyKey) {
      const id = await options.client.sendMessage({ ...(await bodyOf(message, options)), biz_opaque_callback_data: deliveryTag(idempotencyKey) });
      return { id };
    },
  };
}
