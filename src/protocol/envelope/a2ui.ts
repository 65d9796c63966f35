/**
 * The A2UI v0.9 messages an `a2ui-surface` part carries, and the template signature that produces
 * them.
 *
 * Shape chosen (after the A2UI v0.9 specification and its basic catalog):
 * - one part's `data` bundles the three server-to-client messages of one surface under a single
 *   `version: 'v0.9'`: `createSurface`, optionally `updateDataModel`, and `updateComponents`
 *   (A2UI sends each as its own message; a renderer replays them);
 * - components are a flat list, each `{ id, component: '<CatalogName>', ...properties }`; containers
 *   refer to children by id (`child` for Card and Button, `children: [ids]` for Column, Row and
 *   List, or a List template `children: { componentId, path }` that repeats one component per item
 *   of a list in the data model); the tree starts at the component whose id is `root`;
 * - text properties are literal strings or data bindings `{ path: '/json/pointer' }`; inside a List
 *   template a path without a leading `/` is relative to the item;
 * - a Button's `action` is `{ event: { name, context } }`: the client sends the event name and the
 *   context object (its bindings resolved) back to the agent when the button is pressed.
 *
 * `checkSurfaceMessage` (surface-check.ts) holds the rules a surface must pass.
 */

import type { MergeStrategy } from '../parts/part.ts';

/** The A2UI protocol version written in every message. */
export const A2UI_VERSION = 'v0.9';

/** Id of the A2UI v0.9 basic catalog (Text, Card, Row, Column, List, Button, ...). */
export const BASIC_CATALOG_ID = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

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
 * Turns the data of one kind into one A2UI surface, synchronously. `data` is what the turn collected
 * for the kind: the `data` a tool returned as `domainData: { kind, data }`, or under the `append`
 * merge strategy a list of them (see `mergeDomainData`). Nothing checks it against `TData`: a
 * template checks what it relies on. A template that throws, or whose surface fails
 * `checkSurfaceMessage`, is left out of the envelope (its data still goes) and the session's event
 * log gets a `surface_dropped` entry.
 *
 * @typeParam TData - The data the template expects. Default `unknown`.
 */
export type SurfaceTemplate<TData = unknown> = (data: TData, context: SurfaceTemplateContext) => A2uiSurfaceMessage;

/** A data binding: the value at a JSON Pointer of the surface's data model (relative inside a List template). */
export interface A2uiDataBinding {
  readonly path: string;
}

/**
 * The `children` of a List (or Column, Row) repeated over data: one instance of the component
 * `componentId` per item of the list at `path`, each with that item as its data context.
 */
export interface A2uiChildTemplate {
  readonly componentId: string;
  readonly path: string;
}

/**
 * A Button's `action` that sends an event to the agent: `name`, and `context` whose values are
 * literals or {@link A2uiDataBinding}s, resolved when the button is pressed.
 */
export interface A2uiEventAction {
  readonly event: {
    readonly name: string;
    readonly context?: Readonly<Record<string, A2uiDataBinding | string | number | boolean | readonly unknown[]>>;
  };
}
