/**
 * The components of the A2UI v0.9 basic catalog as far as a server needs to know them to check a
 * surface before sending it: each component's properties (a renderer refuses any other), the ones
 * it requires, and the ones that refer to other components. Taken from the catalog's definitions in
 * the A2UI renderer (`@a2ui/web_core` 0.11, `v0_9/basic_catalog`).
 */

/** How a component's properties are checked. */
export interface CatalogComponent {
  /** Every property the component takes besides `id` and `component`. */
  readonly properties: readonly string[];
  /** The properties it cannot do without. */
  readonly required: readonly string[];
}

/** Properties every basic component takes. */
const COMMON = ['accessibility', 'weight'];

/** Properties of components whose input can be checked on the client. */
const CHECKABLE = ['checks', 'isValid', 'validationErrors'];

function component(properties: readonly string[], required: readonly string[] = []): CatalogComponent {
  return { properties: [...COMMON, ...properties], required };
}

/** The basic catalog's components by name. */
export const BASIC_CATALOG_COMPONENTS: Readonly<Record<string, CatalogComponent>> = {
  Text: component(['text', 'variant'], ['text']),
  Image: component(['url', 'description', 'fit', 'variant'], ['url']),
  Icon: component(['name'], ['name']),
  Video: component(['url'], ['url']),
  AudioPlayer: component(['url', 'description'], ['url']),
  Row: component(['children', 'justify', 'align'], ['children']),
  Column: component(['children', 'justify', 'align'], ['children']),
  List: component(['children', 'direction', 'align', 'listStyle'], ['children']),
  Card: component(['child'], ['child']),
  Tabs: component(['tabs'], ['tabs']),
  Modal: component(['trigger', 'content'], ['trigger', 'content']),
  Divider: component(['axis']),
  Button: component(['child', 'variant', 'action', ...CHECKABLE], ['child']),
  TextField: component(['label', 'value', 'variant', 'validationRegexp', ...CHECKABLE], ['label']),
  CheckBox: component(['label', 'value', ...CHECKABLE], ['label', 'value']),
  ChoicePicker: component(['label', 'variant', 'options', 'value', 'displayStyle', 'filterable', ...CHECKABLE], ['options', 'value']),
  Slider: component(['label', 'min', 'max', 'value', ...CHECKABLE], ['max', 'value']),
  DateTimeInput: component(['value', 'enableDate', 'enableTime', 'min', 'max', 'label', ...CHECKABLE], ['value']),
};

/**
 * The ids a component refers to by a single id: `child` (Card, Button), `trigger` and `content`
 * (Modal), and `tabs[].child` (Tabs). Lists of children (`children`) are read separately, since they
 * may be a template.
 */
export function singleChildRefs(properties: Readonly<Record<string, unknown>>): unknown[] {
  const refs: unknown[] = [];
  for (const key of ['child', 'trigger', 'content']) {
    if (properties[key] !== undefined) refs.push(properties[key]);
  }
  const tabs = properties['tabs'];
  if (Array.isArray(tabs)) {
    for (const tab of tabs as unknown[]) {
      if (typeof tab === 'object' && tab !== null && 'child' in tab) refs.push(tab.child);
    }
  }
  return refs;
}
