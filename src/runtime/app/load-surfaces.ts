/**
 * Finds the surface templates of an app folder (`surfaces/<kind>.ts|.js|.mjs`), imports each and
 * checks that its default export can be a template. What a template makes can only be checked on
 * real data, at settlement (see `buildEnvelope`).
 */
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SurfaceTemplate } from '../../protocol/envelope/a2ui.ts';
import { messageOf, type AppProblems } from './app-problems.ts';
import type { AppSurfaceTemplate } from './app-types.ts';
import { isToolModuleFile } from './load-tools.ts';

/** Most parameters a template takes: `(data, context)`. */
const MAX_TEMPLATE_PARAMETERS = 2;

async function surfaceModuleFiles(surfacesDir: string, problems: AppProblems): Promise<string[]> {
  try {
    const entries = await readdir(surfacesDir, { withFileTypes: true });
    // The same files count as modules as in tools/: no tests, declarations or `_` helpers.
    return entries
      .filter((entry) => entry.isFile() && isToolModuleFile(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') problems.add('surfaces/', undefined, `cannot be read: ${messageOf(error)}`);
    return [];
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'no default export';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why `value` cannot be a surface template, or `undefined` when it can. */
export function surfaceExportProblem(value: unknown): string | undefined {
  const expected = 'must be a surface template: a function (data, context) returning an A2UI surface message, e.g. defineSurface((data, context) => ...)';
  if (typeof value !== 'function') return `${expected}; found ${describe(value)}`;
  if (/^class[\s{]/.test(Function.prototype.toString.call(value))) return `${expected}; found a class`;
  if (value.length > MAX_TEMPLATE_PARAMETERS) return `${expected}; found a function of ${String(value.length)} parameters`;
  return undefined;
}

/**
 * Imports every surface module in `<dir>/surfaces` in file-name order. Each module's file name,
 * without its extension, is the data kind its default export shows (`surfaces/flight-results.ts`
 * for the kind `flight-results`). A missing `surfaces/` folder means none. Problems (a module that
 * fails to import, a default export that is not a function of at most two parameters, two files of
 * one kind) are recorded, naming the file.
 *
 * @returns the templates that loaded, in file-name order.
 */
export async function loadSurfaces(dir: string, problems: AppProblems): Promise<AppSurfaceTemplate[]> {
  const surfacesDir = join(dir, 'surfaces');
  const files = await surfaceModuleFiles(surfacesDir, problems);
  const loaded: AppSurfaceTemplate[] = [];
  for (const fileName of files) {
    const file = `surfaces/${fileName}`;
    const kind = fileName.slice(0, -extname(fileName).length);
    const first = loaded.find((surface) => surface.kind === kind);
    if (first !== undefined) {
      problems.add(file, undefined, `shows the data kind "${kind}", which ${first.file} already shows; keep one of them`);
      continue;
    }
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(join(surfacesDir, fileName)).href)) as Record<string, unknown>;
    } catch (error) {
      problems.add(file, undefined, `cannot be imported: ${messageOf(error)}`);
      continue;
    }
    const template = module['default'];
    const problem = surfaceExportProblem(template);
    if (problem !== undefined) {
      problems.add(file, 'default export', problem);
      continue;
    }
    loaded.push({ kind, file, template: template as SurfaceTemplate });
  }
  return loaded;
}
