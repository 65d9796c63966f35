/**
 * `artifact` parts (references to binary assets) as attachments for channels that carry them, or as
 * `name: url` link lines for those that do not.
 */

import type { Paragraph } from 'mdast';
import type { Part } from '../../../src/protocol/parts/part.ts';
import { isRecord, numberField, stringField } from './json-fields.ts';
import { paragraphNode } from './mdast-build.ts';
import { safeUrl } from './urls.ts';

/** One attachment a channel can send. At least one of `url` and `artifactId` is set. */
export interface Attachment {
  /** A safe (`http:`, `https:` or `mailto:`) address of the bytes, when known. */
  readonly url?: string;
  /** The artifact store's id, for channels that fetch the bytes themselves. */
  readonly artifactId?: string;
  /** A file name to show; from the part, else the URL's last path segment, else the id. */
  readonly name: string;
  readonly mimeType?: string;
  /** Size in bytes, when the part gives it (`sizeBytes` or `size`). */
  readonly sizeBytes?: number;
}

/** Options of {@link artifactAttachments}. */
export interface ArtifactOptions {
  /** Turns an artifact id into a URL, for parts that give only an id. Default: none (such parts keep no URL). */
  readonly resolveUrl?: (artifactId: string) => string | undefined;
}

function nameFromUrl(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').filter((segment) => segment !== '').at(-1);
    return last === undefined ? undefined : decodeURIComponent(last);
  } catch {
    return undefined;
  }
}

/** The attachment an `artifact` part describes, or `undefined` when it has neither a usable URL nor an id. */
export function artifactAttachment(part: Part, options: ArtifactOptions = {}): Attachment | undefined {
  const data = part.data;
  if (part.metadata.partType !== 'artifact' || !isRecord(data)) return undefined;
  const artifactId = stringField(data, 'artifactId');
  const given = stringField(data, 'url') ?? (artifactId === undefined ? undefined : options.resolveUrl?.(artifactId));
  const url = given === undefined ? undefined : safeUrl(given);
  if (url === undefined && artifactId === undefined) return undefined;
  const name = stringField(data, 'name') ?? (url === undefined ? undefined : nameFromUrl(url)) ?? artifactId ?? 'attachment';
  const mimeType = stringField(data, 'mimeType');
  const sizeBytes = numberField(data, 'sizeBytes') ?? numberField(data, 'size');
  return {
    name,
    ...(url === undefined ? {} : { url }),
    ...(artifactId === undefined ? {} : { artifactId }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
  };
}

/** The attachments of the `artifact` parts among `parts`, in order. */
export function artifactAttachments(parts: readonly Part[], options: ArtifactOptions = {}): Attachment[] {
  return parts.flatMap((part) => {
    const attachment = artifactAttachment(part, options);
    return attachment === undefined ? [] : [attachment];
  });
}

/**
 * Attachments as link lines for a channel without attachments: one paragraph per attachment, a
 * link labelled with its name (which each target renders, `name: url` in plain text), or
 * `name (not available on this channel)` when there is no URL.
 */
export function attachmentLinks(attachments: readonly Attachment[]): Paragraph[] {
  return attachments.map((attachment) =>
    attachment.url === undefined
      ? paragraphNode(`${attachment.name} (not available on this channel)`)
      : paragraphNode({ type: 'link', url: attachment.url, children: [{ type: 'text', value: attachment.name }] }),
  );
}
