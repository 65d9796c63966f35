/**
 * A medium a person sent on the Cloud API, kept as an artifact before the message is taken: its
 * URL looked up (`GET /{media-id}`), the bytes fetched with the token from Meta's media host,
 * size-capped, and stored. What could not be kept is a line for the actor instead; the message
 * still goes. Only a store that fails (Redis down) throws, so the webhook is answered 503 and Meta
 * sends it again.
 */
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import { DEFAULT_ARTIFACT_MAX_BYTES } from '../../../src/runtime/artifacts/redis-artifact-store.ts';
import { megabytes, type StoredAttachment } from '../../kit/kept-files.ts';
import type { GraphClient } from './graph-client.ts';
import { mediumOf, type CloudMedium } from './inbound-message.ts';
import type { CloudMessage } from './webhook-payload.ts';

/** Options of {@link keepCloudMedia}. */
export interface CloudMediaOptions {
  readonly client: Pick<GraphClient, 'mediaInfo' | 'download'>;
  readonly artifacts: Pick<ArtifactStore, 'put'>;
  /** Largest medium kept, in bytes. Default {@link DEFAULT_ARTIFACT_MAX_BYTES} (10 MiB, the artifact store's limit). */
  readonly maxBytes?: number;
}

/** What was kept, and lines for the actor about what was not. */
export interface KeptCloudMedia {
  readonly stored: StoredAttachment[];
  readonly notes: string[];
}

/** File extensions by media type. A Map: a type Meta names like an inherited property (`__proto__`) has none. */
const EXTENSIONS: ReadonlyMap<string, string> = new Map(Object.entries({
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'audio/ogg': 'ogg', 'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a', 'audio/aac': 'aac', 'audio/amr': 'amr', 'video/mp4': 'mp4', 'video/3gpp': '3gp', 'application/pdf': 'pdf',
}));

/** The media type without parameters, lower case (`audio/ogg; codecs=opus` → `audio/ogg`). */
function essence(mimeType: string): string {
  return (mimeType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The name and type a medium is kept under: a voice note is `voice-note.ogg`, `audio/ogg`. */
export function keptName(medium: CloudMedium): { name: string; mimeType: string } {
  const mimeType = medium.voice ? 'audio/ogg' : essence(medium.mimeType);
  if (medium.voice) return { name: 'voice-note.ogg', mimeType };
  if (medium.filename !== undefined) return { name: medium.filename, mimeType };
  return { name: `${medium.kind}.${EXTENSIONS.get(mimeType) ?? 'bin'}`, mimeType };
}

/** What a medium is called for a person reading the note. */
function described(medium: CloudMedium, name: string): string {
  if (medium.voice) return 'The voice note';
  return `The ${medium.kind === 'document' ? 'file' : medium.kind} ${name}`;
}

const isTooLarge = (error: unknown): boolean => error instanceof SwitchboardError && error.code === 'artifact.too_large';

/** The bytes of the medium (kept as `name`), or the note saying why there are none. */
async function fetchBytes(medium: CloudMedium, name: string, maxBytes: number, client: CloudMediaOptions['client']): Promise<Buffer | { note: string }> {
  const tooLarge = (size?: number): { note: string } => ({ note: `(${described(medium, name)} was too large to keep${size === undefined ? '' : ` at ${megabytes(size)}`}; the limit is ${megabytes(maxBytes)}.)` });
  try {
    const info = await client.mediaInfo(medium.id);
    if (info.fileSize !== undefined && info.fileSize > maxBytes) return tooLarge(info.fileSize);
    return await client.download(info.url, maxBytes);
  } catch (error) {
    if (isTooLarge(error)) return tooLarge();
    const reason = (error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, '');
    return { note: `(${described(medium, name)} could not be fetched from WhatsApp: ${reason}.)` };
  }
}

/**
 * Keeps the medium of `message`, if it has one.
 *
 * @example
 * const kept = await keepCloudMedia(message, { client: graph, artifacts });
 * // { stored: [{ artifactId, name: 'voice-note.ogg', mimeType: 'audio/ogg', sizeBytes: 5120 }], notes: [] }
 */
export async function keepCloudMedia(message: CloudMessage, options: CloudMediaOptions): Promise<KeptCloudMedia> {
  const medium = mediumOf(message);
  if (medium === undefined) return { stored: [], notes: [] };
  const maxBytes = options.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
  const { name, mimeType } = keptName(medium);
  const bytes = await fetchBytes(medium, name, maxBytes, options.client);
  if (!Buffer.isBuffer(bytes)) return { stored: [], notes: [bytes.note] };
  try {
    const meta = await options.artifacts.put({ name, mimeType, bytes });
    return { stored: [{ artifactId: meta.artifactId, name: meta.name, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes }], notes: [] };
  } catch (error) {
    if (!isTooLarge(error)) throw error;
    return { stored: [], notes: [`(${described(medium, name)} was too large to keep at ${megabytes(bytes.length)}.)`] };
  }
}
