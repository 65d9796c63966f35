/**
 * The types of data templates, apart from the registry so that templates need not import it.
 */

import type { RootContent } from 'mdast';

/** What a template is rendering for: a text target (lines) or HTML (where a table may be better). */
export type DataFormat = 'text' | 'html';

/** Facts a template gets besides the value. */
export interface DataTemplateContext {
  /** The data kind, e.g. `flight-results`. */
  readonly kind: string;
  readonly format: DataFormat;
}

/**
 * Renders the value of one data kind as mdast (so each target renders it its own way; text nodes
 * are never read as markup). Returns `undefined` when the value is not the shape the template
 * expects, so the generic rendering is used instead.
 */
export type DataTemplate = (value: unknown, context: DataTemplateContext) => RootContent[] | undefined;
