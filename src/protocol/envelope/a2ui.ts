/**
 * The A2UI v0.9 messages an `a2ui-surface` part carries, and the template signature that produces
 * them.
 *
 * Shape chosen (after the A2UI v0.9 specification and its basic catalog):
 * - one part's `data` bundles the three server-to-client messages of one surface under a single
 *   `version: 'v0.9'`: `createSurface`, optionally `updateDataModel`, and `updateComponents`
 *   (A2UI sends each as its own message; a renderer replays them in that order);
 * - components are a flat list, each `{ id, component: '<CatalogName>', ...properties }`; containers
 *   refer to children by id (`child` for Card and Button, `children: [ids]` for Column and Row); the
 *   tree starts at the component whose id is `root`;
 * - text properties are literal strings or data bindings `{ path: '/json/pointer' }`;
 * - a Button's `action` is `{ event: { name, context } }`: the client sends the event name and the
 *   context object back to the agent when the button is pressed.
 */

import type { MergeStrategy } from '../parts/part.ts';

/** The A2UI protocol version written in every message. */
export const A2UI_VERSION = 'v0.9';

/** Id of the A2UI v0.9 basic catalog (Text, Card, Row, Column, List, Button, ...). */
export const BASIC_CATALOG_ID = 'https://a2ui.org/specification/v0_9/basic_catalog.json';

/** Id every surface's root component has. */
export const ROOT_COMPONENT_ID = 'root';

/** One component of a surface's flat component list. */
export interface A2uiComponent {
  /** Unique within the surface; `root` for the tree's root. */
  readonly id: string;
  /** Catalog component name, e.g. `Card`, `Column`, `Text`, `Button`. */
  readonly component: string;
  /** Component properties, as the catalog defines them (`child`, `children`, `text`, `action`, ...). */
  readonly [property: string]: unknown;
}

/** The `data` of an `a2ui-surface` part. */
export interface A2uiSurfaceMessage {
  readonly version: typeof A2UI_VERSION;
  readonly createSurface: {
    readonly surfaceId: string;
    /** Usually {@link BASIC_CATALOG_ID}. */
    readonly catalogId: string;
    /** When true the client sends the surface's data model back with its requests. Default `false`. */
    readonly sendDataModel?: boolean;
  };
  readonly updateDataModel?: {
    readonly surfaceId: string;
    /** JSON Pointer of the value to set; `/` (or absent) is the whole model. */
    readonly path?: string;
    readonly value?: unknown;
  };
  readonly updateComponents: {
    readonly surfaceId: string;
    readonly components: readonly A2uiComponent[];
  };
}

/** What a surface template is told besides the data. */
export interface SurfaceTemplateContext {
  /** The surface id the template should use (the builder's default; a template may choose another). */
  readonly surfaceId: string;
  /** The data kind (or `approval-request`) the template was picked for. */
  readonly kind: string;
  readonly sessionId: string;
  readonly turnId: string;
  /** The envelope's slot key, when the caller gave one. */
  readonly slotKey?: string;
  /** The envelope's merge strategy. */
  readonly mergeStrategy: MergeStrategy;
}

/**
 * Turns the data of one kind into one A2UI surface. Under the `append` merge strategy the data of a
 * kind is a list (see `mergeDomainData`). May throw a `SwitchboardError` when the data cannot be shown.
 */
export type SurfaceTemplate = (data: unknown, context: SurfaceTemplateContext) => A2uiSurfaceMessage;

/**
 * Structural problems of a surface message: a wrong version, surface ids that differ between the
 * messages, no components, duplicate component ids, no `root` component, or a `child`/`children`
 * reference to an id not in the list. Empty when the message is sound.
 */
export function checkSurfaceMessage(message: A2uiSurfaceMessage): string[] {
  const problems: string[] = [];
  if ((message.version as string) !== A2UI_VERSION) problems.push(`version must be "${A2UI_VERSION}"`);
  const surfaceId = message.createSurface.surfaceId;
  if (surfaceId.length === 0) problems.push('createSurface.surfaceId is empty');
  if (message.updateComponents.surfaceId !== surfaceId) problems.push('updateComponents.surfaceId differs');
  if (message.updateDataModel !== undefined && message.updateDataModel.surfaceId !== surfaceId) {
    problems.push('updateDataModel.surfaceId differs');
  }
  const components = message.updateComponents.components;
  if (components.length === 0) problems.push('updateComponents.components is empty');
  const ids = new Set<string>();
  for (const component of components) {
    if (ids.has(component.id)) problems.push(`component id "${component.id}" is used twice`);
    ids.add(component.id);
  }
  if (components.length > 0 && !ids.has(ROOT_COMPONENT_ID)) problems.push(`no component has id "${ROOT_COMPONENT_ID}"`);
  for (const component of components) {
    const child = component['child'];
    const children = component['children'];
    const refs = [...(typeof child === 'string' ? [child] : []), ...(Array.isArray(children) ? (children as unknown[]) : [])];
    for (const ref of refs) {
      if (typeof ref !== 'string' || !ids.has(ref)) {
        problems.push(`component "${component.id}" refers to unknown child ${JSON.stringify(ref)}`);
      }
    }
  }
  return problems;
}
