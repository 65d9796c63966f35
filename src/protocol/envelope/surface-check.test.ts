import { describe, expect, it } from 'vitest';
import { A2UI_VERSION, BASIC_CATALOG_ID } from './a2ui.ts';
import type { A2uiComponent, A2uiSurfaceMessage } from './a2ui.ts';
import { basicSurfaceMessage } from './define-surface.ts';
import { lookUpPointer, modelWith, resolvePointer } from './json-pointer.ts';
import { checkSurfaceMessage, MAX_SURFACE_COMPONENTS, MAX_SURFACE_DATA_MODEL_BYTES } from './surface-check.ts';
import { MAX_SURFACE_LAYOUT_NODES } from './surface-tree.ts';

const sound: A2uiSurfaceMessage = {
  version: A2UI_VERSION,
  createSurface: { surfaceId: 's', catalogId: BASIC_CATALOG_ID },
  updateDataModel: { surfaceId: 's', path: '/', value: { a: 1 } },
  updateComponents: {
    surfaceId: 's',
    components: [
      { id: 'root', component: 'Card', child: 'col' },
      { id: 'col', component: 'Column', children: ['t'] },
      { id: 't', component: 'Text', text: { path: '/a' } },
    ],
  },
};

/** A surface of `components` over `data`. */
const surface = (components: A2uiComponent[], data?: unknown): A2uiSurfaceMessage =>
  basicSurfaceMessage({ surfaceId: 's', components, ...(data === undefined ? {} : { data }) });

describe('checkSurfaceMessage: shape', () => {
  it('accepts a sound message', () => {
    expect(checkSurfaceMessage(sound)).toEqual([]);
  });

  it('reports each structural problem', () => {
    const broken = {
      ...sound,
      version: 'v0.8',
      updateDataModel: { surfaceId: 'other' },
      updateComponents: {
        surfaceId: 'x',
        components: [
          { id: 'card', component: 'Card', child: 'missing' },
          { id: 'card', component: 'Column', children: ['card', 7] },
        ],
      },
    };
    expect(checkSurfaceMessage(broken)).toEqual([
      'version must be "v0.9"',
      'updateComponents.surfaceId differs',
      'updateDataModel.surfaceId differs',
      'component id "card" is used twice',
      'no component has id "root"',
      'component "card" refers to unknown child "missing"',
      'component "card" refers to unknown child 7',
    ]);
    expect(checkSurfaceMessage({ ...sound, updateComponents: { surfaceId: 's', components: [] } })).toEqual([
      'updateComponents.components is empty',
    ]);
  });

  it('takes anything a JavaScript template may return', () => {
    expect(checkSurfaceMessage(undefined)).toEqual(['the surface message must be an object']);
    expect(checkSurfaceMessage({ version: 'v0.9' })).toEqual([
      'createSurface.surfaceId is empty',
      'createSurface.catalogId is empty',
      'updateComponents is missing',
    ]);
    expect(checkSurfaceMessage({ ...sound, updateComponents: { surfaceId: 's', components: 'root' } })).toEqual([
      'updateComponents.components must be a list',
    ]);
    expect(checkSurfaceMessage(surface([{ id: 'root' } as unknown as A2uiComponent]))).toEqual([
      'component 0 needs a non-empty "id" and "component"',
    ]);
  });

  it('refuses a message that is not JSON', () => {
    const problems = checkSurfaceMessage(surface([{ id: 'root', component: 'Text', text: 'x' }], { big: 10n }));
    expect(problems).toEqual([expect.stringMatching(/^the surface message is not JSON: /)]);
  });
});

describe('checkSurfaceMessage: the basic catalog', () => {
  it('refuses a component the catalog does not have, a property its component does not take, and a missing required one', () => {
    const problems = checkSurfaceMessage(
      surface([
        { id: 'root', component: 'Column', children: ['map', 'card', 'label'] },
        { id: 'map', component: 'Map', center: 'Paris' },
        { id: 'card', component: 'Card', child: 'label', padding: 8 },
        { id: 'label', component: 'Text' },
      ]),
    );
    expect(problems).toEqual([
      'component "map" is a "Map", which the basic catalog does not have',
      'component "card" has the property "padding", which Card does not take',
      'component "label" lacks the property "text" that Text requires',
    ]);
  });

  it('does not apply the basic catalog to another catalog', () => {
    const message = { ...sound, createSurface: { surfaceId: 's', catalogId: 'https://example.com/catalog.json' } };
    const own = { ...message, updateComponents: { surfaceId: 's', components: [{ id: 'root', component: 'Map', center: 'Paris' }] } };
    expect(checkSurfaceMessage(own)).toEqual([]);
  });

  it('knows the id the envelope specification writes', () => {
    const message = { ...sound, createSurface: { surfaceId: 's', catalogId: 'https://a2ui.org/specification/v0_9/basic_catalog.json' } };
    expect(checkSurfaceMessage({ ...message, updateComponents: { surfaceId: 's', components: [{ id: 'root', component: 'Map' }] } })).toEqual([
      'component "root" is a "Map", which the basic catalog does not have',
    ]);
  });

  it('counts Tabs, Modal and Button children as references', () => {
    const problems = checkSurfaceMessage(
      surface([
        { id: 'root', component: 'Column', children: ['tabs', 'modal'] },
        { id: 'tabs', component: 'Tabs', tabs: [{ title: 'One', child: 'nowhere' }] },
        { id: 'modal', component: 'Modal', trigger: 'open', content: 'gone' },
        { id: 'open', component: 'Button', child: 'open-label', action: { event: { name: 'open' } } },
        { id: 'open-label', component: 'Text', text: 'Open' },
      ]),
    );
    expect(problems).toEqual(['component "tabs" refers to unknown child "nowhere"', 'component "modal" refers to unknown child "gone"']);
  });
});

describe('checkSurfaceMessage: the tree', () => {
  it('refuses a cycle of children', () => {
    const problems = checkSurfaceMessage(
      surface([
        { id: 'root', component: 'Column', children: ['a'] },
        { id: 'a', component: 'Card', child: 'b' },
        { id: 'b', component: 'Column', children: ['a'] },
      ]),
    );
    expect(problems).toEqual(['components form a cycle: a -> b -> a']);
  });

  it('refuses a List template that repeats its own List', () => {
    const problems = checkSurfaceMessage(surface([{ id: 'root', component: 'List', children: { componentId: 'root', path: '/items' } }], { items: [1] }));
    expect(problems).toEqual(['components form a cycle: root -> root']);
  });

  it('stops laying out a surface that expands past the limit', () => {
    const items = Array.from({ length: MAX_SURFACE_LAYOUT_NODES }, (_item, index) => ({ name: `n${String(index)}` }));
    const problems = checkSurfaceMessage(
      surface(
        [
          { id: 'root', component: 'List', children: { componentId: 'item', path: '/items' } },
          { id: 'item', component: 'Text', text: { path: 'name' } },
        ],
        { items },
      ),
    );
    expect(problems).toEqual([`the layout has more than ${String(MAX_SURFACE_LAYOUT_NODES)} component instances`]);
  });

  it('refuses more components than the limit', () => {
    const components = Array.from({ length: MAX_SURFACE_COMPONENTS + 1 }, (_item, index): A2uiComponent => ({ id: index === 0 ? 'root' : `t${String(index)}`, component: 'Text', text: 'x' }));
    expect(checkSurfaceMessage(surface(components))).toEqual([`updateComponents lists ${String(MAX_SURFACE_COMPONENTS + 1)} components; at most ${String(MAX_SURFACE_COMPONENTS)} are allowed`]);
  });
});

describe('checkSurfaceMessage: data bindings', () => {
  const flights = {
    title: 'Two flights',
    flights: [
      { number: 'MW 304', book: { flightNumber: 'MW 304' } },
      { number: 'AU 1021', book: { flightNumber: 'AU 1021' } },
    ],
  };
  const list = (card: Partial<A2uiComponent> = {}): A2uiComponent[] => [
    { id: 'root', component: 'Column', children: ['title', 'list'] },
    { id: 'title', component: 'Text', text: { path: '/title' } },
    { id: 'list', component: 'List', children: { componentId: 'card', path: '/flights' } },
    { id: 'card', component: 'Card', child: 'book', ...card },
    { id: 'book', component: 'Button', child: 'label', action: { event: { name: 'book', context: { flightNumber: { path: 'book/flightNumber' }, fixed: 1 } } } },
    { id: 'label', component: 'Text', text: { path: 'number' } },
  ];

  it('accepts absolute bindings and bindings relative to each item of a List template, action contexts included', () => {
    expect(checkSurfaceMessage(surface(list(), flights))).toEqual([]);
  });

  it('refuses a binding to a path missing from the data, naming the item it was missing in', () => {
    const data = { ...flights, flights: [flights.flights[0], { number: 'AU 1021' }] };
    expect(checkSurfaceMessage(surface(list(), data))).toEqual([
      'component "book" binds "book/flightNumber" (/flights/1/book/flightNumber), which is not in the data model',
    ]);
    expect(checkSurfaceMessage(surface(list(), { flights: flights.flights }))).toEqual([
      'component "title" binds "/title" (/title), which is not in the data model',
    ]);
  });

  it('refuses bindings when there is no data model at all', () => {
    expect(checkSurfaceMessage(surface([{ id: 'root', component: 'Text', text: { path: '/title' } }]))).toEqual([
      'component "root" binds "/title" (/title), which is not in the data model',
    ]);
  });

  it('refuses a List template over data that is missing or not a list', () => {
    expect(checkSurfaceMessage(surface(list(), { ...flights, flights: { first: 1 } }))).toEqual([
      'component "list" repeats "card" over "/flights" (/flights), which is not a list',
    ]);
    expect(checkSurfaceMessage(surface(list(), { title: 'None' }))).toEqual([
      'component "list" repeats "card" over "/flights" (/flights), which is not in the data model',
    ]);
  });

  it('checks only absolute bindings inside a template over an empty list', () => {
    expect(checkSurfaceMessage(surface(list(), { ...flights, flights: [] }))).toEqual([]);
    const absolute = list();
    absolute[5] = { id: 'label', component: 'Text', text: { path: '/nothing' } };
    expect(checkSurfaceMessage(surface(absolute, { ...flights, flights: [] }))).toEqual([
      'component "label" binds "/nothing" (/nothing), which is not in the data model',
    ]);
  });

  it('refuses a forbidden path segment', () => {
    expect(checkSurfaceMessage(surface([{ id: 'root', component: 'Text', text: { path: '/__proto__/x' } }], {}))).toEqual([
      'component "root" binds "/__proto__/x" (/__proto__/x), which is a forbidden path',
    ]);
  });

  it('finds the data model where updateDataModel puts it', () => {
    const message = { ...surface([{ id: 'root', component: 'Text', text: { path: '/trip/name' } }]), updateDataModel: { surfaceId: 's', path: '/trip', value: { name: 'Paris' } } };
    expect(checkSurfaceMessage(message)).toEqual([]);
  });

  it(`refuses a data model larger than ${String(MAX_SURFACE_DATA_MODEL_BYTES)} bytes of JSON`, () => {
    const data = { text: 'x'.repeat(MAX_SURFACE_DATA_MODEL_BYTES) };
    expect(checkSurfaceMessage(surface([{ id: 'root', component: 'Text', text: { path: '/text' } }], data))).toEqual([
      `the data model is ${String(MAX_SURFACE_DATA_MODEL_BYTES + 11)} bytes of JSON; at most ${String(MAX_SURFACE_DATA_MODEL_BYTES)} are allowed`,
    ]);
  });
});

describe('JSON pointers as a renderer reads them', () => {
  it('resolves relative paths against the data context', () => {
    expect(resolvePointer('/flights/0', 'book/date')).toBe('/flights/0/book/date');
    expect(resolvePointer('/', 'title')).toBe('/title');
    expect(resolvePointer('/flights/0', '/title')).toBe('/title');
    expect(resolvePointer('/flights/0', '.')).toBe('/flights/0');
  });

  it('looks values up by own key and array index, null being a value', () => {
    const model = { a: [{ 'b/c': null }], 'x~y': 1 };
    expect(lookUpPointer(model, '/a/0/b~1c')).toEqual({ found: true, value: null });
    expect(lookUpPointer(model, '/x~0y')).toEqual({ found: true, value: 1 });
    expect(lookUpPointer(model, '/a/01')).toEqual({ found: false, reason: 'missing' });
    expect(lookUpPointer(model, '/a/0/b~1c/d')).toEqual({ found: false, reason: 'missing' });
    expect(lookUpPointer(model, '/toString')).toEqual({ found: false, reason: 'missing' });
    expect(lookUpPointer(model, '/')).toEqual({ found: true, value: model });
  });

  it('builds the model an update at a path makes', () => {
    expect(modelWith('/', 1)).toBe(1);
    expect(modelWith('/trip/day', 2)).toEqual({ trip: { day: 2 } });
  });
});
