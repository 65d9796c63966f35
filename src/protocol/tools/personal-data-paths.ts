/**
 * The paths of a tool's `personalData`: `/`-separated names from the top of its arguments (a
 * leading `/` is allowed), `*` standing for any member or item, and a name met on an array
 * applying to each of its items (`passengers/fullName` is `passengers/*\/fullName`).
 */

/** The segments of a path (`/a/*\/b` → `['a', '*', 'b']`). */
export function personalDataSegments(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

/** Whether `path` is well formed: at least one name, no empty name between slashes. */
export function isPersonalDataPath(path: string): boolean {
  return /^\/?[^/]+(\/[^/]+)*$/.test(path);
}
