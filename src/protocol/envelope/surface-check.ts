/**
 * The check every surface passes before it goes into an envelope: {@link checkSurfaceMessage}. A
 * surface that fails it is left out of the envelope (see `buildEnvelope`), so a page never gets a
 * surface its renderer would refuse or show half-empty.
 */
import { A2UI_VERSION, BASIC_CATALOG_ID, ROOT_COMPONENT_ID } from './a2ui.ts';
import type { A2uiComponent } from './a2ui.ts';
import { BASIC_CATALOG_COMPONENTS } from './basic-catalog.ts';
import { modelWith } from './json-pointer.ts';
import { childRefs, layoutProblems } from './surface-tree.ts';

/** Largest data model one surface may carry: 256 KiB of JSON (UTF-8), `updateDataModel.value`. */
export const MAX_SURFACE_DATA_MODEL_BYTES = 256 * 1024;

/** Most components one surface may list in `updateComponents` (before List templates repeat them). */
export const MAX_SURFACE_COMPONENTS = 1000;

/**
 * The catalog ids checked against the basic catalog's components: {@link BASIC_CATALOG_ID} and the
 * id the envelope specification's example writes.
 */
export const BASIC_CATALOG_IDS: ReadonlySet<string> = new Set([BASIC_CATALOG_ID, 'https://a2ui.org/specification/v0_9/basic_catalog.json']);

type Fields = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Problems of the three messages' envelope: version, surface ids, catalog; the components when there is a list. */
function messageShape(message: unknown, problems: string[]): { components: readonly unknown[]; catalogId: string; model: unknown } | undefined {
  if (!isRecord(message)) {
    problems.push('the surface message must be an object');
    return undefined;
  }
  if (message['version'] !== A2UI_VERSION) problems.push(`version must be "${A2UI_VERSION}"`);
  const create = message['createSurface'];
  const update = message['updateComponents'];
  const data = message['updateDataModel'];
  const surfaceId = isRecord(create) ? create['surfaceId'] : undefined;
  const catalogId = isRecord(create) ? create['catalogId'] : undefined;
  if (!isNonEmptyString(surfaceId)) problems.push('createSurface.surfaceId is empty');
  if (!isNonEmptyString(catalogId)) problems.push('createSurface.catalogId is empty');
  if (!isRecord(update)) problems.push('updateComponents is missing');
  else if (update['surfaceId'] !== surfaceId) problems.push('updateComponents.surfaceId differs');
  if (data !== undefined) {
    if (!isRecord(data)) problems.push('updateDataModel must be an object');
    else if (data['surfaceId'] !== surfaceId) problems.push('updateDataModel.surfaceId differs');
    else if (data['path'] !== undefined && typeof data['path'] !== 'string') problems.push('updateDataModel.path must be a string');
  }
  const components = isRecord(update) ? update['components'] : undefined;
  if (!Array.isArray(components)) {
    if (isRecord(update)) problems.push('updateComponents.components must be a list');
    return undefined;
  }
  const model = isRecord(data) ? modelWith(typeof data['path'] === 'string' ? data['path'] : '/', data['value']) : undefined;
  return { components: components as unknown[], catalogId: typeof catalogId === 'string' ? catalogId : '', model };
}

/** Problems of the data model's size, or of a message that is not JSON at all. */
function sizeProblems(message: Fields): string[] {
  try {
    JSON.stringify(message);
    const data = message['updateDataModel'];
    const json = isRecord(data) ? JSON.stringify(data['value']) : undefined;
    const bytes = json === undefined ? 0 : new TextEncoder().encode(json).length;
    return bytes > MAX_SURFACE_DATA_MODEL_BYTES ? [`the data model is ${String(bytes)} bytes of JSON; at most ${String(MAX_SURFACE_DATA_MODEL_BYTES)} are allowed`] : [];
  } catch (error) {
    return [`the surface message is not JSON: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** Each component's own problems: its id and name, the basic catalog's rules when it applies. */
function componentProblems(items: readonly unknown[], basic: boolean, problems: string[]): A2uiComponent[] {
  const components: A2uiComponent[] = [];
  const ids = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (!isRecord(item) || !isNonEmptyString(item['id']) || !isNonEmptyString(item['component'])) {
      problems.push(`component ${String(index)} needs a non-empty "id" and "component"`);
      continue;
    }
    const component = item as A2uiComponent;
    if (ids.has(component.id)) problems.push(`component id "${component.id}" is used twice`);
    ids.add(component.id);
    components.push(component);
    if (!basic) continue;
    const rules = Object.hasOwn(BASIC_CATALOG_COMPONENTS, component.component) ? BASIC_CATALOG_COMPONENTS[component.component] : undefined;
    if (rules === undefined) {
      problems.push(`component "${component.id}" is a ${JSON.stringify(component.component)}, which the basic catalog does not have`);
      continue;
    }
    for (const key of Object.keys(component)) {
      if (key !== 'id' && key !== 'component' && !rules.properties.includes(key)) {
        problems.push(`component "${component.id}" has the property "${key}", which ${component.component} does not take`);
      }
    }
    for (const key of rules.required) {
      if (component[key] === undefined) problems.push(`component "${component.id}" lacks the property "${key}" that ${component.component} requires`);
    }
  }
  return components;
}

/**
 * The reasons a renderer would refuse, or show broken, a surface message; empty when it is sound:
 *
 * - shape: version `v0.9`, one non-empty surface id in every message, a catalog id, a list of
 *   components (at most {@link MAX_SURFACE_COMPONENTS}), each with a unique `id` and a `component`;
 * - for the basic catalog ({@link BASIC_CATALOG_IDS}): only its components, only their properties,
 *   and their required properties;
 * - tree: a `root` component; every `child`, `children` (or List template `componentId`), tab
 *   `child`, `trigger` and `content` an id in the list; no cycle;
 * - data: every data binding (`{ path }`, List templates' items included) resolves in the data
 *   model `updateDataModel` sets, every List template's `path` is a list there, and that model is at
 *   most {@link MAX_SURFACE_DATA_MODEL_BYTES} of JSON;
 * - the whole message is JSON.
 *
 * The tree's cycles and the data are checked once everything else is sound, so a broken message
 * may show more problems after its first ones are fixed. Takes any value, since templates written
 * in JavaScript may return anything.
 */
export function checkSurfaceMessage(message: unknown): string[] {
  const problems: string[] = [];
  const shape = messageShape(message, problems);
  if (shape === undefined) return problems;
  const { components: items, catalogId, model } = shape;
  if (items.length === 0) problems.push('updateComponents.components is empty');
  if (items.length > MAX_SURFACE_COMPONENTS) {
    problems.push(`updateComponents lists ${String(items.length)} components; at most ${String(MAX_SURFACE_COMPONENTS)} are allowed`);
    return problems;
  }
  const components = componentProblems(items, BASIC_CATALOG_IDS.has(catalogId), problems);
  const ids = new Set(components.map((component) => component.id));
  if (components.length > 0 && !ids.has(ROOT_COMPONENT_ID)) problems.push(`no component has id "${ROOT_COMPONENT_ID}"`);
  for (const component of components) {
    for (const ref of childRefs(component)) {
      if (typeof ref !== 'string' || !ids.has(ref)) problems.push(`component "${component.id}" refers to unknown child ${JSON.stringify(ref)}`);
    }
  }
  problems.push(...sizeProblems(message as Fields));
  if (problems.length > 0) return problems;
  return layoutProblems(components, model);
}
