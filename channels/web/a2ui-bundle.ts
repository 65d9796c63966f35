/**
 * The A2UI renderer the chat page loads as `/static/a2ui.js`: `surfaces/a2ui-entry.js` with
 * @a2ui/lit, its basic catalog and Lit, bundled by esbuild into one ES module when the web role
 * starts, and kept in memory. The page needs no build step of its operator's, and the bundle always
 * matches the installed renderer.
 */
import { fileURLToPath } from 'node:url';

/** The entry module, beside this file. */
const ENTRY = fileURLToPath(new URL('./surfaces/a2ui-entry.js', import.meta.url));

/** The bundled renderer, or why there is none. */
export type A2uiBundle = { readonly ok: true; readonly code: string } | { readonly ok: false; readonly reason: string };

/**
 * Bundles the renderer (minified, for current browsers). Never rejects: a failure (esbuild missing
 * or the entry not building) resolves to `{ ok: false, reason }`, and the page then shows surfaces
 * in its generic view. esbuild is imported here, when called, so a process without the web role
 * never loads it.
 */
export async function buildA2uiBundle(): Promise<A2uiBundle> {
  try {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: ['chrome120', 'firefox120', 'safari17'],
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.text;
    return code === undefined ? { ok: false, reason: 'esbuild produced no output' } : { ok: true, code };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
