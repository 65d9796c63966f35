/**
 * For the example app's tests: lays a surface out with the A2UI renderer the web page uses
 * (`@a2ui/web_core`, its v0.9 message processor and basic catalog, without a browser), so a test
 * sees what a person would: the texts top to bottom, and the buttons, whose press gives the action
 * the page would send back. Not a template (the leading `_`).
 */
import { BASIC_COMPONENTS, Catalog, ComponentContext, GenericBinder, MessageProcessor, type A2uiClientAction } from '@a2ui/web_core/v0_9';
import { BASIC_CATALOG_ID, type A2uiSurfaceMessage, type SurfaceTemplateContext } from 'switchboard';

/** A button as laid out: its label and what pressing it sends. */
export interface RenderedButton {
  /** The component id (the same for every item of a List template). */
  readonly id: string;
  readonly label: string;
  /** Presses it: the action's event name and context, bindings resolved for its item. Press one button at a time. */
  press(): Promise<{ readonly name: string; readonly context: Readonly<Record<string, unknown>> }>;
}

/** What a person sees of a surface. */
export interface RenderedSurface {
  /** Every Text, in layout order (a button's label included). */
  readonly texts: readonly string[];
  readonly buttons: readonly RenderedButton[];
}

/** The context a template is given for `kind` in a test. */
export function templateContext(kind: string): SurfaceTemplateContext {
  return { surfaceId: kind, kind, sessionId: 'session-test', turnId: 'turn-test', mergeStrategy: 'replace' };
}

/** A child as the renderer resolves it: an id, or an item of a List template with its data path. */
type ResolvedChild = string | { readonly id: string; readonly basePath: string };

/**
 * Lays `message` out as the web page's renderer does (which throws on a component or property the
 * basic catalog does not have).
 */
export function render(message: A2uiSurfaceMessage): RenderedSurface {
  const actions: A2uiClientAction[] = [];
  const catalog = new Catalog(BASIC_CATALOG_ID, BASIC_COMPONENTS);
  const processor = new MessageProcessor([catalog], (action) => {
    actions.push(action);
  });
  const { version } = message;
  processor.processMessages([
    { version, createSurface: message.createSurface },
    { version, updateComponents: { ...message.updateComponents, components: [...message.updateComponents.components] } },
    ...(message.updateDataModel === undefined ? [] : [{ version, updateDataModel: message.updateDataModel }]),
  ]);
  const surface = processor.model.getSurface(message.createSurface.surfaceId);
  if (surface === undefined) throw new Error('the renderer made no surface');
  const texts: string[] = [];
  const buttons: RenderedButton[] = [];

  const propsOf = (id: string, basePath: string, schema: ConstructorParameters<typeof GenericBinder>[1]): Readonly<Record<string, unknown>> => {
    const binder = new GenericBinder(new ComponentContext(surface, id, basePath), schema);
    return binder.snapshot as Readonly<Record<string, unknown>>;
  };

  const visit = (id: string, basePath: string): void => {
    const type = surface.componentsModel.get(id)?.type;
    const api = type === undefined ? undefined : catalog.components.get(type);
    if (api === undefined) throw new Error(`the renderer has no component "${id}"`);
    const props = propsOf(id, basePath, api.schema);
    if (type === 'Text') texts.push(String(props['text']));
    const children: ResolvedChild[] = [
      ...(typeof props['child'] === 'string' ? [props['child']] : []),
      ...(Array.isArray(props['children']) ? (props['children'] as ResolvedChild[]) : []),
    ];
    const before = texts.length;
    for (const child of children) {
      if (typeof child === 'string') visit(child, basePath);
      else visit(child.id, child.basePath);
    }
    if (type !== 'Button') return;
    const action = props['action'];
    buttons.push({
      id,
      label: texts.slice(before).join(' '),
      press: async () => {
        if (typeof action !== 'function') throw new Error(`button "${id}" has no action`);
        const index = actions.length;
        (action as () => void)();
        await new Promise((resolve) => setImmediate(resolve));
        const sent = actions[index];
        if (sent === undefined) throw new Error(`button "${id}" sent nothing`);
        return { name: sent.name, context: sent.context };
      },
    });
  };
  visit('root', '/');
  return { texts, buttons };
}
