/**
 * Artifacts: files a turn produced (a ticket PDF, a chart) kept for a while, so that channels can
 * attach them to a message or link to them with a short-lived signed URL. Types only; the Redis
 * implementation is `redis-artifact-store.ts`, the signed URLs `artifact-urls.ts`.
 */

/** What is known about one stored artifact. JSON-serialisable. */
export interface ArtifactMeta {
  /** 128-bit random id, base64url (22 characters of `A-Z a-z 0-9 - _`). */
  readonly artifactId: string;
  /** The file name as given, made safe: no folders, no control or bidi characters, at most 200 characters. */
  readonly name: string;
  /** Lower-case `type/subtype` without parameters; `application/octet-stream` when the given type was not one. */
  readonly mimeType: string;
  /** Size of the bytes, in bytes. */
  readonly sizeBytes: number;
  /** SHA-256 of the bytes, as 64 lower-case hex digits. */
  readonly sha256: string;
  /** When it was stored, ISO 8601. */
  readonly createdAt: string;
}

/** A file to store. */
export interface NewArtifact {
  /** File name to show; sanitised on the way in (see {@link ArtifactMeta.name}). */
  readonly name: string;
  /** Media type, e.g. `application/pdf`; parameters are dropped. */
  readonly mimeType: string;
  readonly bytes: Uint8Array;
}

/** A stored artifact with its bytes. */
export interface StoredArtifact {
  readonly meta: ArtifactMeta;
  readonly bytes: Buffer;
}

/** Where artifacts are kept until they expire. */
export interface ArtifactStore {
  /**
   * Stores a file under a new random id and returns its meta.
   * @throws SwitchboardError `artifact.too_large` when the bytes exceed the store's limit.
   */
  put(artifact: NewArtifact): Promise<ArtifactMeta>;
  /** The artifact and its bytes; `undefined` when the id is unknown, malformed or expired. */
  get(artifactId: string): Promise<StoredArtifact | undefined>;
  /** The artifact's meta alone (no bytes read); `undefined` when unknown, malformed or expired. */
  meta(artifactId: string): Promise<ArtifactMeta | undefined>;
}
