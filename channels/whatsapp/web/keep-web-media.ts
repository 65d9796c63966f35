/**
 * The medium of a WhatsApp Web message kept as an artifact: downloaded through the session,
 * refused above the size cap, a voice note (`ptt`) kept as audio. What could not be kept becomes a
 * line for the actor instead of failing the message.
 */
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import { DEFAULT_ARTIFACT_MAX_BYTES } from '../../../src/runtime/artifacts/redis-artifact-store.ts';
import { megabytes, type StoredAttachment } from '../../kit/kept-files.ts';
import type { WebMedia, WebMessage } from './web-client.ts';

/** What was kept of one message's medium. */
export interface KeptMedia {
  readonly attachments: readonly StoredAttachment[];
  /** Lines for the actor about what was not kept. */
  readonly notes: readonly string[];
}

const KINDS: Readonly<Record<string, string>> = { ptt: 'voice note', audio: 'audio file', image: 'picture', video: 'video', document: 'document', sticker: 'sticker' };

/** The media type without parameters; a voice note is audio whatever it says. */
function mimeTypeOf(type: string, media: WebMedia): string {
  const essence = (media.mimetype.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'ptt' && !essence.startsWith('audio/')) return 'audio/ogg';
  return essence === '' ? 'application/octet-stream' : essence;
}

/** The file name to keep: the sender's, or one made from the kind and type (`voice-note.ogg`). */
function nameOf(type: string, media: WebMedia, mimeType: string): string {
  if (typeof media.filename === 'string' && media.filename.trim() !== '') return media.filename;
  const extension = (mimeType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/g, '').slice(0, 8) || 'bin';
  return `${(KINDS[type] ?? 'file').replace(' ', '-')}.${extension}`;
}

/**
 * Keeps `message`'s medium, if it has one.
 *
 * @param maxBytes - Largest medium kept, in bytes. Default {@link DEFAULT_ARTIFACT_MAX_BYTES} (10 MiB, the artifact store's limit).
 */
export async function keepWebMedia(message: WebMessage, artifacts: Pick<ArtifactStore, 'put'>, maxBytes = DEFAULT_ARTIFACT_MAX_BYTES): Promise<KeptMedia> {
  if (!message.hasMedia) return { attachments: [], notes: [] };
  const kind = KINDS[message.type] ?? 'file';
  const media = await message.downloadMedia().catch(() => undefined);
  if (media === undefined) return { attachments: [], notes: [`(A ${kind} was sent, but WhatsApp no longer had it to download.)`] };
  const bytes = Buffer.from(media.data, 'base64');
  const tooLarge = `(A ${kind} of ${megabytes(bytes.length)} was sent; it was too large to keep (the limit is ${megabytes(maxBytes)}).)`;
  if (bytes.length > maxBytes) return { attachments: [], notes: [tooLarge] };
  const mimeType = mimeTypeOf(message.type, media);
  try {
    const meta = await artifacts.put({ name: nameOf(message.type, media, mimeType), mimeType, bytes });
    return { attachments: [{ artifactId: meta.artifactId, name: meta.name, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes }], notes: [] };
  } catch (error) {
    if (error instanceof SwitchboardError && error.code === 'artifact.too_large') return { attachments: [], notes: [tooLarge] };
    throw error;
  }
}
