/**
 * Inbound MMS media: each `MediaUrl<n>` fetched with the account's credentials (only from the
 * configured Twilio API host, so the credentials never go elsewhere), size-capped, and kept as an
 * artifact. What cannot be kept is said in a line for the actor.
 */
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import type { StoredAttachment } from '../kit/kept-files.ts';
import { readCapped } from '../kit/read-capped.ts';
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
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const tooLarge = (): SwitchboardError => new SwitchboardError('artifact.too_large', `over ${maxBytes} bytes`, { details: { maxBytes } });
  if (!response.ok || Number(response.headers.get('content-length') ?? '0') > maxBytes) {
    await response.body?.cancel();
    throw response.ok ? tooLarge() : new Error(`HTTP ${response.status}`);
  }
  // Read no further than the cap: a missing or false Content-Length does not make us hold more.
  const bytes = response.body === null ? Buffer.alloc(0) : await readCapped(response.body, maxBytes);
  if (bytes === undefined) throw tooLarge();
  return bytes;
}

/** Keeps one medium: the attachment, or the line saying why it was not kept. Throws only when the store fails. */
async function keepOne(medium: { url: string; contentType: string; index: number }, options: MediaOptions): Promise<StoredAttachment | string> {
  const name = `media-${medium.index + 1}.${extension(medium.contentType)}`;
  let bytes: Buffer;
  try {
    bytes = await download(medium.url, options);
  } catch (error) {
    const tooLarge = error instanceof SwitchboardError && error.code === 'artifact.too_large';
    return tooLarge ? `(The picture or file ${name} was too large to keep.)` : `(The picture or file ${name} could not be fetched.)`;
  }
  const meta = await options.artifacts.put({ name, mimeType: medium.contentType, bytes });
  return { artifactId: meta.artifactId, name: meta.name, mimeType: meta.mimeType, sizeBytes: meta.sizeBytes };
}

/**
 * Keeps the media of a webhook, all at once (each within its own 10 s, so ten media take no longer
 * than one before Twilio is answered); never throws for a medium that cannot be had, only for a
 * store that fails.
 */
export async function keepMedia(params: WebhookParams, options: MediaOptions): Promise<{ stored: StoredAttachment[]; notes: string[] }> {
  const kept = await Promise.all(mediaOf(params).map((medium) => keepOne(medium, options)));
  return {
    stored: kept.filter((each): each is StoredAttachment => typeof each !== 'string'),
    notes: kept.filter((each): each is string => typeof each === 'string'),
  };
}
