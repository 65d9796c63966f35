/**
 * A kept artifact as the `MessageMedia` whatsapp-web.js sends: the library recognises media by
 * its class, so a plain object with the same fields would be sent as text.
 */
import wwebjs from 'whatsapp-web.js';
import type { StoredArtifact } from '../../../src/runtime/artifacts/artifact-store.ts';

/** The artifact's bytes as a `MessageMedia`, base64, named `name`. */
export function artifactMedia(artifact: StoredArtifact, name: string): wwebjs.MessageMedia {
  return new wwebjs.MessageMedia(artifact.meta.mimeType, artifact.bytes.toString('base64'), name, artifact.bytes.length);
}
