/**
 * The artifact store in Redis. Each artifact is two keys under `<prefix>:art:<id>`, written in one
 * transaction with the same TTL, so both expire together:
 *
 * - `<prefix>:art:<id>:meta`: the {@link ArtifactMeta} as JSON (read alone by `meta()`);
 * - `<prefix>:art:<id>:bytes`: the raw bytes.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { isRandomToken, randomToken } from '../crypto/signing.ts';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { ArtifactMeta, ArtifactStore, NewArtifact } from './artifact-store.ts';

/** Default largest artifact: 10 MiB, in bytes. */
export const DEFAULT_ARTIFACT_MAX_BYTES = 10 * 1024 * 1024;

/** Default time an artifact is kept: 30 days, in milliseconds. */
export const DEFAULT_ARTIFACT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Longest sanitised file name, in characters (UTF-16 code units). */
const MAX_NAME_CHARS = 200;

/** Control characters, bidi controls (which can disguise an extension) and characters file systems refuse. */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff:*?"<>|]/gu;

const MIME_ESSENCE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** Options of {@link createRedisArtifactStore}. */
export interface RedisArtifactStoreOptions {
  /** A connection the caller owns (and closes). No ioredis `keyPrefix`. */
  readonly redis: Redis;
  /** Key prefix; the store's keys are `<prefix>:art:…`. */
  readonly prefix: string;
  /** Largest artifact accepted, in bytes. Default {@link DEFAULT_ARTIFACT_MAX_BYTES} (10 MiB). */
  readonly maxBytes?: number;
  /** How long an artifact is kept, in milliseconds. Default {@link DEFAULT_ARTIFACT_TTL_MS} (30 days). */
  readonly ttlMs?: number;
  /** The time of `createdAt`. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/**
 * A file name safe to show and to put in a `Content-Disposition` header: the last path segment,
 * without control, bidi or reserved characters, runs of spaces collapsed, no leading or trailing
 * dots or spaces, cut to 200 characters keeping a short extension. `file` when nothing is left.
 *
 * @example
 * sanitiseFileName('../../etc/pass"wd') // 'pass_wd'
 */
export function sanitiseFileName(name: string): string {
  const last = name.normalize('NFC').split(/[/\\]/).at(-1) ?? '';
  const clean = last.replace(UNSAFE_NAME_CHARS, '_').replace(/\s+/gu, ' ').replace(/^[\s.]+|[\s.]+$/gu, '');
  if (clean === '' || /^_+$/.test(clean)) return 'file';
  if (clean.length <= MAX_NAME_CHARS) return clean;
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
  return `${clean.slice(0, MAX_NAME_CHARS - extension.length).trimEnd()}${extension}`;
}

/** The media type's lower-case `type/subtype`, or `application/octet-stream` when it is not a media type. */
export function normaliseMimeType(mimeType: string): string {
  const essence = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  return MIME_ESSENCE.test(essence) ? essence : 'application/octet-stream';
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new SwitchboardError('config.invalid', `${name} must be a positive integer, got ${String(value)}`, { details: { [name]: value } });
  }
  return value;
}

function parseMeta(json: string | null): ArtifactMeta | undefined {
  if (json === null) return undefined;
  const meta = JSON.parse(json) as unknown;
  return typeof meta === 'object' && meta !== null ? (meta as ArtifactMeta) : undefined;
}

/**
 * Creates the store.
 *
 * @example
 * const artifacts = createRedisArtifactStore({ redis, prefix: 'sb' });
 * const meta = await artifacts.put({ name: 'ticket.pdf', mimeType: 'application/pdf', bytes });
 * const found = await artifacts.get(meta.artifactId); // { meta, bytes } until 30 days have passed
 * @throws SwitchboardError `config.invalid` when `maxBytes` or `ttlMs` is not a positive integer.
 */
export function createRedisArtifactStore(options: RedisArtifactStoreOptions): ArtifactStore {
  const { redis, prefix } = options;
  const maxBytes = positiveInteger('maxBytes', options.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES);
  const ttlMs = positiveInteger('ttlMs', options.ttlMs ?? DEFAULT_ARTIFACT_TTL_MS);
  const clock = options.clock ?? (() => new Date());
  const key = (artifactId: string, part: 'meta' | 'bytes'): string => `${prefix}:art:${artifactId}:${part}`;

  return {
    async put({ name, mimeType, bytes }: NewArtifact) {
      const safeName = sanitiseFileName(name);
      if (bytes.byteLength > maxBytes) {
        const details = { name: safeName, sizeBytes: bytes.byteLength, maxBytes };
        throw new SwitchboardError('artifact.too_large', `"${safeName}" is ${bytes.byteLength} bytes; artifacts may be at most ${maxBytes} bytes.`, { details });
      }
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const meta: ArtifactMeta = {
        artifactId: randomToken(),
        name: safeName,
        mimeType: normaliseMimeType(mimeType),
        sizeBytes: buffer.byteLength,
        sha256: createHash('sha256').update(buffer).digest('hex'),
        createdAt: clock().toISOString(),
      };
      const results = await redis
        .multi()
        .set(key(meta.artifactId, 'bytes'), buffer, 'PX', ttlMs)
        .set(key(meta.artifactId, 'meta'), JSON.stringify(meta), 'PX', ttlMs)
        .exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
      return meta;
    },

    async get(artifactId) {
      if (!isRandomToken(artifactId)) return undefined;
      const [meta, bytes] = await Promise.all([redis.get(key(artifactId, 'meta')), redis.getBuffer(key(artifactId, 'bytes'))]);
      const parsed = parseMeta(meta);
      return parsed === undefined || bytes === null ? undefined : { meta: parsed, bytes };
    },

    async meta(artifactId) {
      return isRandomToken(artifactId) ? parseMeta(await redis.get(key(artifactId, 'meta'))) : undefined;
    },
  };
}
