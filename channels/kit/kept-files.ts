/**
 * Files a person sent, as the actor is told about them: each kept file one line naming its
 * artifact, the same on every channel, so actors (and their prompts) read one form.
 */

/** One file kept as an artifact. */
export interface StoredAttachment {
  readonly artifactId: string;
  readonly name: string;
  readonly mimeType: string;
  /** In bytes. */
  readonly sizeBytes: number;
}

/** A size in megabytes with one decimal, e.g. `2.4 MB` (1 MB = 1,048,576 bytes). */
export function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/**
 * The line the actor reads for a kept file.
 *
 * @example
 * attachedLine({ artifactId: 'Zx…', name: 'ticket.pdf', mimeType: 'application/pdf', sizeBytes: 40960 })
 * // '[attached: ticket.pdf, application/pdf, 0.0 MB, artifact Zx…]'
 */
export function attachedLine(kept: StoredAttachment): string {
  return `[attached: ${kept.name}, ${kept.mimeType}, ${megabytes(kept.sizeBytes)}, artifact ${kept.artifactId}]`;
}
