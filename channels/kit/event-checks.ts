/**
 * The checks channel normalisers share. An event reaches `normalise` as `unknown`; it is refused
 * (`channel.invalid`) unless every field the normaliser reads has its type, so a malformed event
 * never becomes a malformed injection, nor a `TypeError`.
 */
import type { Sender } from '../../src/runtime/injection.ts';
import type { StoredAttachment } from './kept-files.ts';

/** An event's fields as a normaliser reads them before checking: every one may be anything. */
export type UncheckedFields = Readonly<Partial<Record<string, unknown>>>;

/** `value` as an object whose fields are still to be checked, or `undefined` for anything else (arrays included). */
export function uncheckedFields(value: unknown): UncheckedFields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as UncheckedFields) : undefined;
}

/** Whether `value` is a string of at least one character. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** Whether `value` is absent or a string. */
export function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

/** Whether `value` is an array of strings. */
export function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Whether `value` is an ISO 8601 date-time with a zone naming a real time (`receivedAt`): the protocol's own check. */
export { isIsoDateTime } from '../../src/protocol/iso-date-time.ts';

/** Whether `value` is a {@link Sender}: a non-empty `id`, a boolean `verified`, and strings for what else it has. */
export function isSender(value: unknown): value is Sender {
  const sender = uncheckedFields(value);
  return (
    sender !== undefined &&
    isNonEmptyString(sender['id']) &&
    typeof sender['verified'] === 'boolean' &&
    isOptionalString(sender['displayName']) &&
    isOptionalString(sender['personId']) &&
    isOptionalString(sender['basis'])
  );
}

/** Whether `value` is a {@link StoredAttachment}: an artifact id, a name, a media type and a size in bytes. */
export function isStoredAttachment(value: unknown): value is StoredAttachment {
  const kept = uncheckedFields(value);
  const size = kept?.['sizeBytes'];
  return (
    kept !== undefined &&
    isNonEmptyString(kept['artifactId']) &&
    typeof kept['name'] === 'string' &&
    typeof kept['mimeType'] === 'string' &&
    typeof size === 'number' &&
    Number.isFinite(size) &&
    size >= 0
  );
}

/** Whether `value` is an array of {@link StoredAttachment}s. */
export function isAttachmentList(value: unknown): value is readonly StoredAttachment[] {
  return Array.isArray(value) && value.every(isStoredAttachment);
}
