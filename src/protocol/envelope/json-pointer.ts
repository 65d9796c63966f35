/**
 * JSON Pointers as an A2UI v0.9 renderer reads the paths of data bindings: a path starting with `/`
 * is absolute; any other path is relative to the component's data context (the item of a List
 * template, `/` elsewhere); empty segments are ignored and `~1`/`~0` stand for `/` and `~`.
 */

/** Segments a renderer refuses in a path, since they would reach an object's prototype. */
const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The pointer's segments, unescaped; `[]` for `/` and `` (the whole model). */
export function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .filter((segment) => segment.length > 0)
    .map((segment) => segment.replace(/~([01])/g, (_match, digit: string) => (digit === '1' ? '/' : '~')));
}

/**
 * The absolute pointer a binding `path` names in a data context at `base` (absolute): `path` itself
 * when it starts with `/`, `base` for `` and `.`, else `base` and `path` joined by one `/`.
 */
export function resolvePointer(base: string, path: string): string {
  if (path.startsWith('/')) return path;
  if (path === '' || path === '.') return base;
  const trimmed = base.endsWith('/') ? base.slice(0, -1) : base;
  return `${trimmed}/${path}`;
}

/** What a pointer reaches in a value. */
export type PointerLookup =
  | { readonly found: true; readonly value: unknown }
  | { readonly found: false; readonly reason: 'missing' | 'forbidden' };

/**
 * The value `pointer` reaches in `root`: object members by own key, array items by a decimal index
 * without leading zeros. `null` is a value that is there; `undefined` and a path through a
 * non-container are `missing`; `__proto__`, `constructor` and `prototype` are `forbidden`.
 */
export function lookUpPointer(root: unknown, pointer: string): PointerLookup {
  let current = root;
  for (const segment of pointerSegments(pointer)) {
    if (FORBIDDEN_SEGMENTS.has(segment)) return { found: false, reason: 'forbidden' };
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment)) return { found: false, reason: 'missing' };
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Readonly<Record<string, unknown>>)[segment];
    } else {
      return { found: false, reason: 'missing' };
    }
  }
  return current === undefined ? { found: false, reason: 'missing' } : { found: true, value: current };
}

/**
 * A data model holding `value` at `pointer` and nothing else (`value` itself for `/` or ``): what a
 * renderer's model is after one `updateDataModel` on an empty surface. Numeric segments make
 * object keys, as in A2UI's data model.
 */
export function modelWith(pointer: string, value: unknown): unknown {
  return pointerSegments(pointer).reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
}
