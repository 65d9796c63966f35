/**
 * Inbound MMS media: each `MediaUrl<n>` fetched with the account's credentials (only from the
 * configured Twilio API host, so the credentials never go elsewhere), size-capped, and kept as an
 * artifact. What cannot be kept is said in a line for the actor.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import type { StoredAttachment } from '../kit/kept-files.ts';
import type { WebhookParams } from './webhook.ts';

/** What fetching needs. */
export interface MediaOptions {
  readonly accountSid: string;
  readonly authToken: string;
  /** `TWILIO_API_URL`: media URLs elsewhere are not fetched. */
  readonly apiUrl: string;
  readonly artifacts: Pick<ArtifactStore, 'put'>;
  /** Largest medium, in bytes. Default 5 MiB (Twilio's MMS limit). */
  readonly maxBytes?: number;
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** Most media of one message (Twilio's limit). */
const MAX_MEDIA = 10;

function mediaOf(params: WebhookParams): { url: string; contentType: string; index: number }[] {
  const count = Math.min(Number(params['NumMedia'] ?? '0') || 0, MAX_MEDIA);
  return Array.from({ length: count }, (_, index) => ({ url: params[`MediaUrl${index}`] ?? '', contentType: params[`MediaContentType${index}`] ?? 'application/octet-stream', index }));
}

function extension(contentType: string): string {
  const sub = contentType.split('/')[1]?.split(/[;+]/)[0] ?? 'bin';
  return sub === 'jpeg' ? 'jpg' : sub;
}

async function download(url: string, options: MediaOptions): Promise<Buffer> {
  if (!url.startsWith(`${options.apiUrl}/`)) throw new Error('not a media URL of the configured Twilio API');
  const response = await (options.fetch ?? fetch)(url, {
    headers: { authorization: `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new SwitchboardError('artifact.too_large', `over ${maxBytes} bytes`, { details: { maxBytes } });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > maxBytes) throw new SwitchboardError('artifact.too_large', `over ${maxBytes} bytes`, { details: { maxBytes } });
  return bytes;
}

/** Keeps the media of a webhook; never throws for a medium that cannot be had, only for a store that fails. */
export async function keepMedia(params: WebhookParams, options: MediaOptions): Promise<{ stored: StoredAttachment[]; notes: string[] }> {
  const stored: StoredAttachment[] = [];
  const notes: string[] = [];
  for (const medium of mediaOf(params)) {
    const name = `media-${medium.index + 1}.${extension(medium.contentType)}`;
    let bytes: Buffer;
    try {
      bytes = await download(medium.url, options);
    } catch (error) {
      const tooLarge = error instanceof SwitchboardError && error.code === 'artifact.too_large';
      notes.push(tooLarge ? `(The picture or file ${name} was too large to keep.)` : `(The picture or file ${name} could not be fetched.)`);
      continue;
    }
    const meta = await options.artifacts.put({ name, mimeType: medium.contentType, bytes });
    stored.push({ artifactId: meta.artifactId, name: meta.name, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes });
  }
  return { stored, notes };
}
