/**
 * Runs one surface template for the envelope builder and checks what it made. A template that
 * throws or makes an unsound surface does not fail the turn: the surface is dropped and the
 * builder reports why (see {@link DroppedSurface}).
 */
import type { ErrorCode } from '../errors.ts';
import { toSwitchboardError } from '../errors.ts';
import type { JsonObject, Part } from '../parts/part.ts';
import type { SurfaceTemplate, SurfaceTemplateContext } from './a2ui.ts';
import { checkSurfaceMessage } from './surface-check.ts';

/** Part type of generated surfaces. */
export const A2UI_SURFACE_PART_TYPE = 'a2ui-surface';

/** A surface left out of an envelope, and why. */
export interface DroppedSurface {
  /** The data kind (or `approval-request`) whose template it was. */
  readonly kind: string;
  /** The surface id the template was given. */
  readonly surfaceId: string;
  /** `template-threw`: the template threw; `invalid-surface`: what it returned failed `checkSurfaceMessage`. */
  readonly reason: 'template-threw' | 'invalid-surface';
  /** What went wrong, in one sentence. */
  readonly message: string;
  /** The code of the error the template threw (`internal` for an error that is not a `SwitchboardError`). */
  readonly code?: ErrorCode;
  /** Every rule the surface broke, when `invalid-surface`. */
  readonly problems?: readonly string[];
}

/** What running a template gave: the `a2ui-surface` part, or why there is none. */
export type SurfaceOutcome = { readonly part: Part } | { readonly dropped: DroppedSurface };

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The drop of a surface that broke `problems` (the message names the first three). */
function invalidSurface(kind: string, surfaceId: string, problems: readonly string[]): { readonly dropped: DroppedSurface } {
  const shown = problems.length > 3 ? [...problems.slice(0, 3), `and ${String(problems.length - 3)} more`] : problems;
  return { dropped: { kind, surfaceId, reason: 'invalid-surface', message: `The surface template for "${kind}" made an invalid surface: ${shown.join('; ')}.`, problems } };
}

/**
 * Calls `template` with `data` and `context` and checks its message. A sound message becomes an
 * `a2ui-surface` part holding a plain-JSON copy of it; anything else is a {@link DroppedSurface}.
 */
export function runSurfaceTemplate(template: SurfaceTemplate, data: unknown, context: SurfaceTemplateContext): SurfaceOutcome {
  const { kind, surfaceId } = context;
  let message: unknown;
  try {
    message = template(data, context);
  } catch (thrown) {
    const error = toSwitchboardError(thrown);
    return { dropped: { kind, surfaceId, reason: 'template-threw', message: `The surface template for "${kind}" threw: ${error.message}`, code: error.code } };
  }
  if (isPromiseLike(message)) {
    // Nobody waits for it: a rejection must not become an unhandled one.
    void Promise.resolve(message).catch(() => undefined);
    return invalidSurface(kind, surfaceId, ['the template returned a promise; surface templates are synchronous']);
  }
  const problems = checkSurfaceMessage(message);
  if (problems.length > 0) return invalidSurface(kind, surfaceId, problems);
  return { part: { data: JSON.parse(JSON.stringify(message)) as JsonObject, metadata: { partType: A2UI_SURFACE_PART_TYPE } } };
}
