/* global document */
// The browser side of A2UI surfaces in the web chat: the real A2UI v0.9 renderer (@a2ui/lit and
// its basic catalog), bundled by esbuild when the web role starts (see ../a2ui-bundle.ts) and served
// as /static/a2ui.js. The chat page imports it lazily and calls mountSurface for each
// `a2ui-surface` part.
import { MessageProcessor } from '@a2ui/web_core/v0_9';
import { A2uiSurface, basicCatalog } from '@a2ui/lit/v0_9';

// Keeps the custom element <a2ui-surface> in the bundle (its module defines it).
const surfaceElement = A2uiSurface;

/** Where each mounted surface's actions go, by surface id. */
const listeners = new Map();

const processor = new MessageProcessor([basicCatalog], (action) => {
  const listener = listeners.get(action.surfaceId);
  if (listener === undefined) return;
  listener({ surfaceId: action.surfaceId, sourceComponentId: action.sourceComponentId, name: action.name, context: action.context ?? {} });
});

/** The separate A2UI messages one `a2ui-surface` part bundles, in the order a renderer applies them. */
function messagesOf(message, create) {
  if (message === null || typeof message !== 'object' || message.version !== 'v0.9') {
    throw new Error('not an A2UI v0.9 surface message');
  }
  const version = message.version;
  const list = [];
  if (create) list.push({ version, createSurface: message.createSurface });
  if (message.updateComponents !== undefined) list.push({ version, updateComponents: message.updateComponents });
  if (message.updateDataModel !== undefined) list.push({ version, updateDataModel: message.updateDataModel });
  return list;
}

function surfaceIdOf(message) {
  const id = message?.createSurface?.surfaceId ?? message?.updateComponents?.surfaceId ?? message?.updateDataModel?.surfaceId;
  if (typeof id !== 'string' || id === '') throw new Error('the surface message has no surface id');
  return id;
}

/**
 * Renders the surface of an `a2ui-surface` part's data into `container` and routes its actions to
 * `onAction({ surfaceId, sourceComponentId, name, context })`. A surface id shown before is made
 * anew. Throws when the message cannot be rendered (the page then shows its generic view).
 * Returns the surface id and `update(message)`, which applies a later part's components and data
 * model to the same surface in place.
 */
export function mountSurface(container, message, onAction) {
  const surfaceId = surfaceIdOf(message);
  if (processor.model.getSurface(surfaceId) !== undefined) {
    processor.processMessages([{ version: 'v0.9', deleteSurface: { surfaceId } }]);
  }
  let created;
  const subscription = processor.onSurfaceCreated((surface) => {
    if (surface.id === surfaceId) created = surface;
  });
  listeners.set(surfaceId, onAction);
  try {
    processor.processMessages(messagesOf(message, true));
  } catch (error) {
    listeners.delete(surfaceId);
    if (processor.model.getSurface(surfaceId) !== undefined) processor.processMessages([{ version: 'v0.9', deleteSurface: { surfaceId } }]);
    throw error;
  } finally {
    subscription.unsubscribe();
  }
  if (created === undefined) throw new Error(`surface ${surfaceId} was not created`);
  const element = document.createElement('a2ui-surface');
  element.surface = created;
  container.append(element);
  return {
    surfaceId,
    update(next) {
      processor.processMessages(messagesOf(next, false));
    },
  };
}

export { surfaceElement };
