/**
 * The data-bearing parts of a turn: `domain-data`, `a2ui-surface` and `citation`.
 *
 * A kind of domain data is shown in the generic view unless the same turn has a surface for it (a
 * surface whose id is the kind, or `<slotKey>/<kind>`). Parts may come in either order (an actor's
 * own surface is sent at once, the turn's collected data at settlement), so: a kind already shown
 * generically is taken away once its surface has rendered, and a kind held back for a surface is
 * shown after all when the surface cannot be rendered. A surface that fails with no data for its
 * kind in the turn shows its own data model in the generic view. A kind without a value (an empty
 * list or record) is not shown: the answer's text says what was not found.
 */
import { isRecord, make } from './dom.js';
import { isEmptyValue, renderKind } from './generic-view.js';
import { addCitations, citationsSection } from './envelope-parts.js';
import { surfaceIdOf } from './surfaces.js';

const APPROVAL_SURFACE = /^approval-(.+)$/;

/** Whether the surface `surfaceId` is the one made for data of `kind`. */
function surfaceShowsKind(surfaceId, kind) {
  return surfaceId === kind || surfaceId.endsWith('/' + kind);
}

/**
 * @param {{
 *   surfaces: { show(data: object): { surfaceId?: string, element: HTMLElement | null, shown: Promise<boolean> } },
 *   approvalShown: (approvalId: string) => boolean,
 *   place: (turn: object, node: HTMLElement, after?: Element | null) => void,
 * }} options `place` puts a node in the turn's body: after `after` when given, else at the end.
 */
export function createTurnEnvelope(options) {
  /** What this module keeps per turn, on the turn object. */
  function stateOf(turn) {
    turn.envelope ??= { data: new Map(), views: new Map(), section: null, surfaceIds: new Set(), citations: null };
    return turn.envelope;
  }

  function hasSurfaceFor(state, kind) {
    for (const surfaceId of state.surfaceIds) if (surfaceShowsKind(surfaceId, kind)) return true;
    return false;
  }

  /** Shows (or replaces) the generic view of one kind in the turn's data section. */
  function showKind(turn, kind, value, partId) {
    const state = stateOf(turn);
    const view = renderKind(kind, value);
    const previous = state.views.get(kind);
    state.views.set(kind, view);
    if (previous !== undefined && previous.isConnected) {
      previous.replaceWith(view);
      return;
    }
    if (state.section === null || !state.section.isConnected) {
      state.section = make('section', 'part part-domain-data');
      state.section.setAttribute('aria-label', 'Data');
      state.section.dataset.partType = 'domain-data';
      if (partId) state.section.dataset.partId = partId;
      state.section.append(view);
      options.place(turn, state.section);
      return;
    }
    state.section.append(view);
  }

  function removeKind(state, kind) {
    const view = state.views.get(kind);
    state.views.delete(kind);
    if (view === undefined) return;
    view.remove();
    if (state.section !== null && state.section.childElementCount === 0) {
      state.section.remove();
      state.section = null;
    }
  }

  /** After a surface failed: the turn's data for it, else the surface's own data model. */
  function fallBack(turn, surfaceId, data) {
    const state = stateOf(turn);
    const kinds = surfaceId === undefined ? [] : [...state.data.keys()].filter((kind) => surfaceShowsKind(surfaceId, kind) && !hasSurfaceFor(state, kind));
    const shown = kinds.filter((kind) => !isEmptyValue(state.data.get(kind)));
    for (const kind of shown) showKind(turn, kind, state.data.get(kind));
    if (kinds.length > 0) return;
    const model = isRecord(data) && isRecord(data.updateDataModel) ? data.updateDataModel.value : undefined;
    if (isEmptyValue(model)) return;
    const kind = surfaceId === undefined ? 'details' : (surfaceId.split('/').at(-1) ?? surfaceId);
    state.data.set(kind, model);
    showKind(turn, kind, model);
  }

  return {
    /** A `domain-data` part: each kind with a value and no surface in this turn, in the generic view. */
    domainData(turn, part, partId) {
      const state = stateOf(turn);
      const data = isRecord(part.data) ? part.data : {};
      for (const [kind, value] of Object.entries(data)) {
        state.data.set(kind, value);
        if (hasSurfaceFor(state, kind) || isEmptyValue(value)) removeKind(state, kind);
        else showKind(turn, kind, value, partId);
      }
    },

    /**
     * An `a2ui-surface` part: a new block for a new surface (returned, for the caller to place),
     * `null` when it updates one already shown or is the approval surface of a card on the page.
     */
    surface(turn, part) {
      const state = stateOf(turn);
      const data = part.data;
      const surfaceId = surfaceIdOf(data);
      const approval = surfaceId === undefined ? null : APPROVAL_SURFACE.exec(surfaceId);
      // The page's own approval card already shows (and answers) this request.
      if (approval !== null && approval[1] !== undefined && options.approvalShown(approval[1])) return null;
      if (surfaceId !== undefined) state.surfaceIds.add(surfaceId);
      const { element, shown } = options.surfaces.show(data);
      void shown.then((rendered) => {
        if (rendered && surfaceId !== undefined) {
          for (const kind of [...state.views.keys()]) if (surfaceShowsKind(surfaceId, kind)) removeKind(state, kind);
          return;
        }
        if (surfaceId !== undefined) state.surfaceIds.delete(surfaceId);
        fallBack(turn, surfaceId, data);
      });
      return element;
    },

    /** A `citation` part: its sources added to the turn's numbered list, placed under the answer. */
    citation(turn, part, text, partId) {
      const state = stateOf(turn);
      const fresh = state.citations === null;
      const section = state.citations ?? citationsSection();
      if (addCitations(section, part, text) === 0 || !fresh) return;
      state.citations = section;
      section.dataset.partType = 'citation';
      if (partId) section.dataset.partId = partId;
      const answers = turn.body.querySelectorAll(':scope > .part-response');
      options.place(turn, section, answers.length > 0 ? answers[answers.length - 1] : null);
    },
  };
}
