/**
 * Templates that turn `domain-data` into short readable content, per data kind. A template returns
 * mdast, so every target (plain, WhatsApp, Slack, HTML) renders it in its own way; kinds without a
 * template get {@link genericTemplate}. Raw JSON is never shown.
 */

import type { RootContent } from 'mdast';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { bookingTemplate, flightResultsTemplate } from './flight-templates.ts';
import type { GenericLimits } from './generic-template.ts';
import { genericTemplate } from './generic-template.ts';
import type { DataFormat, DataTemplate } from './template-types.ts';

/** Data templates by kind. Create one with {@link createDataTemplates}. */
export interface DataTemplates {
  /**
   * Registers the template of `kind`.
   * @throws SwitchboardError `render.invalid` when `kind` is empty or already has a template.
   */
  register(kind: string, template: DataTemplate): void;
  /** The template of `kind`, if any. */
  get(kind: string): DataTemplate | undefined;
  /** `value` of `kind` as mdast: its template's output, or the generic rendering. */
  render(kind: string, value: unknown, format: DataFormat): RootContent[];
}

/** Options of {@link createDataTemplates}. */
export interface DataTemplatesOptions {
  /**
   * Register the example app's `flight-results` and `booking` templates, and `itinerary` (which
   * adds nothing: the itinerary's text is the answer). Default `true`.
   */
  readonly builtIns?: boolean;
  /** Limits of the generic rendering. Default: see {@link GenericLimits}. */
  readonly generic?: GenericLimits;
}

/**
 * A registry of data templates, with the built-in flight templates unless `builtIns` is `false`.
 *
 * @example
 * const templates = createDataTemplates();
 * templates.register('weather', (value) => [paragraphNode(`${String((value as { summary?: unknown }).summary)}`)]);
 */
export function createDataTemplates(options: DataTemplatesOptions = {}): DataTemplates {
  const templates = new Map<string, DataTemplate>();
  const registry: DataTemplates = {
    register(kind, template) {
      if (kind.length === 0) throw new SwitchboardError('render.invalid', 'A data template needs a non-empty kind.');
      if (templates.has(kind)) {
        throw new SwitchboardError('render.invalid', `A data template for "${kind}" is already registered.`, { details: { kind } });
      }
      templates.set(kind, template);
    },
    get: (kind) => templates.get(kind),
    render(kind, value, format) {
      const own = templates.get(kind)?.(value, { kind, format });
      return own ?? genericTemplate(kind, value, options.generic);
    },
  };
  if (options.builtIns !== false) {
    registry.register('flight-results', flightResultsTemplate);
    registry.register('booking', bookingTemplate);
    // format_itinerary is terminal: its text, the turn's answer, already lays the itinerary out.
    registry.register('itinerary', () => []);
  }
  return registry;
}

/** One value of one kind, read out of a `domain-data` part. */
export interface DataEntry {
  readonly kind: string;
  readonly value: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The kinds and values of a `domain-data` part's `data`, in order:
 * - `{ kind, data }` (a tool's `domainData`) gives `data` under `kind`;
 * - `{ kind, ...fields }` gives the other fields under `kind`;
 * - otherwise (the envelope's collected form) each top-level key is a kind. A list under a kind that
 *   has a template, made of objects only (the `append` merge strategy), gives one entry per element.
 */
export function dataEntries(data: unknown, templates: DataTemplates): DataEntry[] {
  if (!isRecord(data)) return [];
  const kind = data['kind'];
  if (typeof kind === 'string' && kind !== '') {
    const { kind: _kind, ...rest } = data;
    const keys = Object.keys(rest);
    return [{ kind, value: keys.length === 1 && keys[0] === 'data' ? rest['data'] : rest }];
  }
  return Object.entries(data).flatMap(([key, value]): DataEntry[] =>
    Array.isArray(value) && templates.get(key) !== undefined && value.length > 0 && value.every(isRecord)
      ? value.map((element) => ({ kind: key, value: element }))
      : [{ kind: key, value }],
  );
}
