/**
 * Helpers for writing a surface template: {@link defineSurface} for its types, and
 * {@link basicSurfaceMessage} for the three messages of a basic-catalog surface.
 */
import { A2UI_VERSION, BASIC_CATALOG_ID } from './a2ui.ts';
import type { A2uiComponent, A2uiSurfaceMessage, SurfaceTemplate } from './a2ui.ts';

/**
 * Returns `template` unchanged; only lets TypeScript check it against {@link SurfaceTemplate} with
 * the data type it expects. An app's `surfaces/<kind>.ts` default-exports one.
 *
 * @example
 * import { basicSurfaceMessage, defineSurface } from 'switchboard';
 *
 * export default defineSurface<{ city: string; celsius: number }>((data, { surfaceId }) =>
 *   basicSurfaceMessage({
 *     surfaceId,
 *     data: { line: `${data.city}: ${String(data.celsius)} °C` },
 *     components: [{ id: 'root', component: 'Text', text: { path: '/line' } }],
 *   }),
 * );
 */
export function defineSurface<TData = unknown>(template: SurfaceTemplate<TData>): SurfaceTemplate<TData> {
  return template;
}

/** Options of {@link basicSurfaceMessage}. */
export interface BasicSurfaceOptions {
  /** The surface's id; usually `context.surfaceId`. */
  readonly surfaceId: string;
  /** The components, one of them with id `root`. */
  readonly components: readonly A2uiComponent[];
  /** The data model the components bind to, set at `/`. Default: none (no `updateDataModel`). */
  readonly data?: unknown;
  /** Whether the client sends the data model back with the surface's actions. Default `false`. */
  readonly sendDataModel?: boolean;
}

/**
 * A surface on the A2UI v0.9 basic catalog: `createSurface`, `updateDataModel` (when `data` is
 * given) and `updateComponents`, all with the same surface id.
 */
export function basicSurfaceMessage(options: BasicSurfaceOptions): A2uiSurfaceMessage {
  const { surfaceId } = options;
  return {
    version: A2UI_VERSION,
    createSurface: { surfaceId, catalogId: BASIC_CATALOG_ID, ...(options.sendDataModel === true ? { sendDataModel: true } : {}) },
    ...(options.data === undefined ? {} : { updateDataModel: { surfaceId, path: '/', value: options.data } }),
    updateComponents: { surfaceId, components: options.components },
  };
}
