/**
 * Walks a surface's component tree from `root` the way a renderer lays it out, List templates
 * repeated once per item of their data, and reports what would break it: a cycle of children, a
 * template over data that is not a list, and a data binding whose path is not in the data model.
 */
import type { A2uiComponent } from './a2ui.ts';
import { ROOT_COMPONENT_ID } from './a2ui.ts';
import { singleChildRefs } from './basic-catalog.ts';
import { lookUpPointer, resolvePointer } from './json-pointer.ts';

/** Most component instances one surface may lay out, List templates expanded. */
export const MAX_SURFACE_LAYOUT_NODES = 10_000;

/** A List template: one instance of `componentId` per item of the list at `path`. */
interface ChildTemplate {
  readonly componentId: unknown;
  readonly path: string;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `children` as a List template, or `undefined` when it is a plain list (or anything else). */
export function childTemplate(children: unknown): ChildTemplate | undefined {
  if (!isRecord(children) || typeof children['path'] !== 'string' || !('componentId' in children)) return undefined;
  return { componentId: children['componentId'], path: children['path'] };
}

/** Every id a component refers to: `child`, `trigger`, `content`, tab children, `children` (or its template's component). */
export function childRefs(component: A2uiComponent): unknown[] {
  const children = component['children'];
  const template = childTemplate(children);
  const listed = template === undefined ? (Array.isArray(children) ? (children as unknown[]) : []) : [template.componentId];
  return [...singleChildRefs(component), ...listed];
}

/** The data-binding paths in a property value: every `{ path }` object that is not a List template. */
function bindingPaths(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) bindingPaths(item, out);
    return;
  }
  if (!isRecord(value)) return;
  if (typeof value['path'] === 'string' && !('componentId' in value)) out.push(value['path']);
  for (const inner of Object.values(value)) bindingPaths(inner, out);
}

/** Where a walk is: the data context of the component (`undefined` when no item can be known). */
interface Visit {
  readonly id: string;
  readonly base: string | undefined;
  readonly trail: readonly string[];
}

/**
 * The problems of laying out `components` (ids already unique and checked to exist) from `root`
 * over `model`. Relative bindings inside a template over an empty list cannot be checked and are
 * not; absolute ones always are.
 */
export function layoutProblems(components: readonly A2uiComponent[], model: unknown): string[] {
  const byId = new Map(components.map((component) => [component.id, component]));
  const problems = new Set<string>();
  let nodes = 0;

  const checkBindings = (component: A2uiComponent, base: string | undefined): void => {
    const paths: string[] = [];
    for (const [key, value] of Object.entries(component)) {
      if (key !== 'id' && key !== 'component' && key !== 'children') bindingPaths(value, paths);
    }
    for (const path of paths) {
      if (base === undefined && !path.startsWith('/')) continue;
      const pointer = resolvePointer(base ?? '/', path);
      const found = lookUpPointer(model, pointer);
      if (!found.found) problems.add(`component "${component.id}" binds ${JSON.stringify(path)} (${pointer}), which is ${found.reason === 'forbidden' ? 'a forbidden path' : 'not in the data model'}`);
    }
  };

  const templateBases = (component: A2uiComponent, template: ChildTemplate, base: string | undefined): (string | undefined)[] => {
    if (base === undefined && !template.path.startsWith('/')) return [undefined];
    const pointer = resolvePointer(base ?? '/', template.path);
    const list = lookUpPointer(model, pointer);
    const where = `component "${component.id}" repeats ${JSON.stringify(template.componentId)} over ${JSON.stringify(template.path)} (${pointer})`;
    if (!list.found) problems.add(`${where}, which is not in the data model`);
    else if (!Array.isArray(list.value)) problems.add(`${where}, which is not a list`);
    const items = list.found && Array.isArray(list.value) ? list.value.length : 0;
    return items === 0 ? [undefined] : Array.from({ length: items }, (_item, index) => resolvePointer(pointer, String(index)));
  };

  const visit = ({ id, base, trail }: Visit): void => {
    const component = byId.get(id);
    if (component === undefined) return;
    nodes += 1;
    if (nodes > MAX_SURFACE_LAYOUT_NODES) return;
    checkBindings(component, base);
    const path = [...trail, id];
    const template = childTemplate(component['children']);
    const next: Visit[] = [];
    for (const ref of childRefs(component)) {
      if (typeof ref !== 'string') continue;
      if (path.includes(ref)) {
        problems.add(`components form a cycle: ${[...path.slice(path.indexOf(ref)), ref].join(' -> ')}`);
        continue;
      }
      const bases = template !== undefined && ref === template.componentId ? templateBases(component, template, base) : [base];
      for (const childBase of bases) next.push({ id: ref, base: childBase, trail: path });
    }
    for (const child of next) visit(child);
  };

  visit({ id: ROOT_COMPONENT_ID, base: '/', trail: [] });
  if (nodes > MAX_SURFACE_LAYOUT_NODES) problems.add(`the layout has more than ${String(MAX_SURFACE_LAYOUT_NODES)} component instances`);
  return [...problems];
}
