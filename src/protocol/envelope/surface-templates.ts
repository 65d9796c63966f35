/**
 * The registry of surface templates, keyed by data kind. The envelope builder looks up the kind of
 * each piece of domain data (and `approval-request` for approval parts) and, when a template is
 * registered, adds the surface it produces as an `a2ui-surface` part.
 */

import { SwitchboardError } from '../errors.ts';
import type { SurfaceTemplate } from './a2ui.ts';
import { APPROVAL_REQUEST_KIND, approvalSurfaceTemplate } from './approval-surface.ts';

/** Surface templates by data kind. Create one with {@link createSurfaceTemplateRegistry}. */
export class SurfaceTemplateRegistry {
  readonly #templates = new Map<string, SurfaceTemplate>();

  /**
   * Registers the template for `kind`.
   * @throws SwitchboardError `surface.duplicate` when `kind` already has a template (use
   *   {@link override} to replace one on purpose), `envelope.invalid` when `kind` is empty.
   */
  register(kind: string, template: SurfaceTemplate): void {
    SurfaceTemplateRegistry.#checkKind(kind);
    if (this.#templates.has(kind)) {
      throw new SwitchboardError('surface.duplicate', `A surface template for "${kind}" is already registered.`, {
        details: { kind },
      });
    }
    this.#templates.set(kind, template);
  }

  /**
   * Sets the template for `kind`, replacing any registered one (e.g. the built-in approval surface).
   * @throws SwitchboardError `envelope.invalid` when `kind` is empty.
   */
  override(kind: string, template: SurfaceTemplate): void {
    SurfaceTemplateRegistry.#checkKind(kind);
    this.#templates.set(kind, template);
  }

  /** The template for `kind`, or `undefined`. */
  get(kind: string): SurfaceTemplate | undefined {
    return this.#templates.get(kind);
  }

  /** Whether `kind` has a template. */
  has(kind: string): boolean {
    return this.#templates.has(kind);
  }

  /** Every kind with a template, in registration order. */
  kinds(): string[] {
    return [...this.#templates.keys()];
  }

  static #checkKind(kind: string): void {
    if (kind.length === 0) {
      throw new SwitchboardError('envelope.invalid', 'A surface template needs a non-empty data kind.');
    }
  }
}

/** Options of {@link createSurfaceTemplateRegistry}. */
export interface SurfaceTemplateRegistryOptions {
  /**
   * The `approval-request` template, e.g. one made by `createApprovalSurfaceTemplate` with the app's
   * tool titles and deciders. Default {@link approvalSurfaceTemplate}.
   */
  readonly approvalTemplate?: SurfaceTemplate;
}

/**
 * A registry holding the `approval-request` template (the built-in one unless
 * `options.approvalTemplate` is given); replace it with `registry.override('approval-request', template)`.
 */
export function createSurfaceTemplateRegistry(options: SurfaceTemplateRegistryOptions = {}): SurfaceTemplateRegistry {
  const registry = new SurfaceTemplateRegistry();
  registry.register(APPROVAL_REQUEST_KIND, options.approvalTemplate ?? approvalSurfaceTemplate);
  return registry;
}
