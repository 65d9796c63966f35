/**
 * Personal data a tool declares in its arguments (`personalData` of its registration: paths such
 * as `email` or `passengers/*\/fullName`), masked wherever the service records a call: the
 * `tool_call` log entry and the captured model request and response.
 *
 * Paths are read as `src/protocol/tools/personal-data-paths.ts` says; the value a path reaches is
 * replaced whole, whatever its type.
 */
import { personalDataSegments } from '../../protocol/tools/personal-data-paths.ts';

/** What a personal-data value is replaced with. */
export const MASKED = '•••';

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with what `segments` reach from its top masked; the input is not changed. */
function maskFrom(value: unknown, segments: readonly string[]): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return MASKED;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    // A name met on an array applies to every item; `*` or an index picks items.
    if (head === '*') return items.map((item) => maskFrom(item, rest));
    if (/^\d+$/.test(head)) return items.map((item, index) => (String(index) === head ? maskFrom(item, rest) : item));
    return items.map((item) => maskFrom(item, segments));
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const key of Object.keys(value)) {
    if (head === '*' || key === head) out[key] = maskFrom(value[key], rest);
  }
  return out;
}

/** `value` with `paths` masked from its top and from every object and array below it. */
function maskEverywhere(value: unknown, paths: readonly (readonly string[])[]): unknown {
  let out = value;
  for (const segments of paths) out = maskFrom(out, segments);
  if (Array.isArray(out)) return out.map((item) => maskEverywhere(item, paths));
  if (!isRecord(out)) return out;
  return Object.fromEntries(Object.entries(out).map(([key, item]) => [key, maskEverywhere(item, paths)]));
}

/**
 * `value` (a call's arguments) with each of `paths` masked. With `anywhere`, a path also matches
 * below the top (for results, which often repeat the arguments, e.g. under `domainData`).
 *
 * @example
 * maskPersonalData({ passengers: [{ fullName: 'Ada' }], seats: 1 }, ['passengers/*\/fullName'])
 * // { passengers: [{ fullName: '•••' }], seats: 1 }
 */
export function maskPersonalData<T>(value: T, paths: readonly string[], anywhere = false): T {
  if (paths.length === 0) return value;
  const parsed = paths.map(personalDataSegments);
  return (anywhere ? maskEverywhere(value, parsed) : parsed.reduce<unknown>((out, segments) => maskFrom(out, segments), value)) as T;
}

/**
 * A tool's result text with `paths` masked anywhere in it when it is JSON; other text as it is
 * (nothing to find a path in).
 */
export function maskPersonalDataText(text: string, paths: readonly string[]): string {
  if (paths.length === 0) return text;
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.stringify(maskPersonalData(JSON.parse(text) as unknown, paths, true));
  } catch {
    return text;
  }
}
