/* global console */
/**
 * A2UI surfaces in the chat page. The renderer (`/static/a2ui.js`, @a2ui/lit bundled by the server)
 * is loaded only when the first `a2ui-surface` part arrives, so the chat works without it: when it
 * cannot be loaded, or cannot render a surface, the caller shows the data in its generic view and
 * the reason is logged as a warning.
 *
 * A surface is shown once per surface id: a later part for the same id updates it in place. A
 * pressed Button's action is posted to the conversation's actions route; the surface's controls are
 * disabled while the POST is under way, and a refusal is shown under the surface.
 */
import { isRecord, make, randomId, serverProblem } from './dom.js';

const RENDERER_URL = '/static/a2ui.js';

/** The surface id an `a2ui-surface` part's data names (in any of its messages), or `undefined`. */
export function surfaceIdOf(data) {
  if (!isRecord(data)) return undefined;
  for (const key of ['createSurface', 'updateComponents', 'updateDataModel']) {
    const message = data[key];
    if (isRecord(message) && typeof message.surfaceId === 'string' && message.surfaceId !== '') return message.surfaceId;
  }
  return undefined;
}

/** Every element under `root`, also inside open shadow roots (where the renderer's buttons live). */
function* elementsUnder(root) {
  for (const element of root.querySelectorAll('*')) {
    yield element;
    if (element.shadowRoot) yield* elementsUnder(element.shadowRoot);
  }
}

/** Disables a surface's buttons (and makes it inert) until the returned function is called. */
function holdControls(wrapper) {
  const disabled = [];
  for (const element of elementsUnder(wrapper)) {
    if (element.tagName === 'BUTTON' && !element.disabled) {
      element.disabled = true;
      disabled.push(element);
    }
  }
  wrapper.inert = true;
  wrapper.setAttribute('aria-busy', 'true');
  return () => {
    for (const button of disabled) button.disabled = false;
    wrapper.inert = false;
    wrapper.removeAttribute('aria-busy');
  };
}

/**
 * The surfaces of one conversation view.
 *
 * @param {{ postAction: (body: object) => Promise<Response>, loadRenderer?: () => Promise<object> }} options
 *   `postAction` POSTs an action's JSON (with the page's cookie and CSRF token); `loadRenderer`
 *   imports the renderer module (default: `import('/static/a2ui.js')`).
 */
export function createSurfaces(options) {
  const load = options.loadRenderer ?? (() => import(RENDERER_URL));
  /** The renderer module, loaded once; a failure stays a failure for the life of the page. */
  let renderer;
  /** Shown (or mounting) surfaces by surface id. */
  const surfaces = new Map();

  function loadRenderer() {
    renderer ??= load().then((module) => {
      if (typeof module.mountSurface !== 'function') throw new Error(RENDERER_URL + ' does not export mountSurface');
      return module;
    });
    return renderer;
  }

  async function sendAction(entry, action) {
    if (entry.busy) return;
    entry.busy = true;
    entry.problem.hidden = true;
    const release = holdControls(entry.wrapper);
    const body = {
      id: randomId(),
      surfaceId: typeof action.surfaceId === 'string' && action.surfaceId !== '' ? action.surfaceId : entry.surfaceId,
      ...(typeof action.sourceComponentId === 'string' && action.sourceComponentId !== '' ? { sourceComponentId: action.sourceComponentId } : {}),
      name: action.name,
      context: isRecord(action.context) ? action.context : {},
    };
    let failure;
    try {
      const response = await options.postAction(body);
      if (!response.ok) failure = 'Not sent: ' + (await serverProblem(response));
    } catch {
      failure = 'No connection: the action was not sent. Try again.';
    } finally {
      release();
      entry.busy = false;
    }
    if (failure !== undefined) {
      entry.problem.textContent = failure;
      entry.problem.hidden = false;
    }
  }

  function mount(surfaceId, data) {
    const wrapper = make('div', 'part part-surface');
    wrapper.dataset.surfaceId = surfaceId;
    const host = make('div', 'surface-host');
    const problem = make('p', 'surface-problem');
    problem.setAttribute('role', 'alert');
    problem.hidden = true;
    wrapper.append(host, problem);
    const entry = { surfaceId, wrapper, problem, busy: false, handle: undefined };
    entry.handle = loadRenderer()
      .then((module) =>
        module.mountSurface(host, data, (action) => {
          void sendAction(entry, action);
        }),
      )
      .catch((error) => {
        console.warn('Switchboard chat: surface "' + surfaceId + '" is shown in its generic view:', error instanceof Error ? error.message : error);
        if (surfaces.get(surfaceId) === entry) surfaces.delete(surfaceId);
        wrapper.remove();
        return undefined;
      });
    surfaces.set(surfaceId, entry);
    return { element: wrapper, shown: entry.handle.then((handle) => handle !== undefined) };
  }

  function update(entry, data) {
    return entry.handle.then((handle) => {
      if (handle === undefined) return false;
      try {
        handle.update(data);
        return true;
      } catch (error) {
        console.warn('Switchboard chat: surface "' + entry.surfaceId + '" could not be updated:', error instanceof Error ? error.message : error);
        return false;
      }
    });
  }

  return {
    /**
     * Shows an `a2ui-surface` part's data: a new block for a new surface id (`element`, to be put in
     * the page at once), or `element: null` when it updates a surface already shown. `shown`
     * resolves to whether the surface rendered; when it resolves `false` (no surface id, the
     * renderer missing or refusing it) the caller shows the generic view instead.
     */
    show(data) {
      const surfaceId = surfaceIdOf(data);
      if (surfaceId === undefined) {
        console.warn('Switchboard chat: an a2ui-surface part names no surface id; its data is shown in the generic view.');
        return { surfaceId, element: null, shown: Promise.resolve(false) };
      }
      const existing = surfaces.get(surfaceId);
      if (existing !== undefined) return { surfaceId, element: null, shown: update(existing, data) };
      return { surfaceId, ...mount(surfaceId, data) };
    },
  };
}
