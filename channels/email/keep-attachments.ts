/**
 * A mail's attachments kept as artifacts, each within the store's size limit; what could not be
 * kept is said in words, so the actor (and through it the person) knows.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { attachedLine, megabytes, type StoredAttachment } from '../kit/kept-files.ts';
import type { MailAttachment } from './read-mail.ts';

/** Most attachments kept from one mail. */
const MAX_ATTACHMENTS = 10;

/** Stores `attachments`; returns what was stored and a line for each attachment that was not. */
export async function keepAttachments(
  attachments: readonly MailAttachment[],
  artifacts: Pick<ArtifactStore, 'put'>,
): Promise<{ stored: StoredAttachment[]; notes: string[] }> {
  const stored: StoredAttachment[] = [];
  const notes: string[] = [];
  for (const attachment of attachments.slice(0, MAX_ATTACHMENTS)) {
    try {
      const meta = await artifacts.put({ name: attachment.name, mimeType: attachment.mimeType, bytes: attachment.bytes });
      stored.push({ artifactId: meta.artifactId, name: meta.name, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes });
    } catch (error) {
      if (!(error instanceof SwitchboardError) || error.code !== 'artifact.too_large') throw error;
      const limit = typeof error.details['maxBytes'] === 'number' ? ` (the limit is ${megabytes(error.details['maxBytes'])})` : '';
      notes.push(`(The attachment ${attachment.name}, ${megabytes(attachment.bytes.length)}, was too large to keep${limit}.)`);
    }
  }
  if (attachments.length > MAX_ATTACHMENTS) notes.push(`(Only the first ${MAX_ATTACHMENTS} of ${attachments.length} attachments were kept.)`);
  const listed = stored.map(attachedLine);
  return { stored, notes: [...listed, ...notes] };
}
