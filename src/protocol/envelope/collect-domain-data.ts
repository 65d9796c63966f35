/**
 * Folds a turn's data-bearing events and data-bearing parts into the envelope's one `domain-data`
 * part.
 *
 * The collected object is keyed by data kind:
 * - a {@link DataBearingEvent} contributes `{ [event.kind]: event.data }`;
 * - a `domain-data` part contributes its `data` as is (its top-level keys are read as kinds);
 * - a part of another data-bearing part type (a consumer type registered with `dataBearing: true`)
 *   contributes `{ [partType]: data }`.
 *
 * Contributions are folded in order, events first (mailbox order), then parts (respond() order), with
 * {@link mergeDomainData} under the turn's merge strategy. Parts without a `data` object contribute
 * nothing.
 */

import { SwitchboardError } from '../errors.ts';
import type { JsonObject, MergeStrategy, Part, PartMetadata } from '../parts/part.ts';
import type { DataBearingEvent } from './envelope.ts';

/** The part type of the collected part. */
export const DOMAIN_DATA_PART_TYPE = 'domain-data';

/** Merge strategy stamped (and used) when none is given. */
export const DEFAULT_MERGE_STRATEGY: MergeStrategy = 'replace';

/** Options of {@link collectDomainData}. */
export interface CollectDomainDataOptions {
  /** The turn's data-bearing events, in mailbox order. Default none. */
  readonly events?: readonly DataBearingEvent[];
  /** The data-bearing parts the actor emitted (`domain-data` and consumer types), in order. Default none. */
  readonly parts?: readonly Part[];
  /** How contributions for the same kind combine; stamped as `metadata.mergeStrategy`. Default `replace`. */
  readonly mergeStrategy?: MergeStrategy;
  /** The destination slot's stable identity; stamped as `metadata.slotKey` only when given. */
  readonly slotKey?: string;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, also for keys such as `__proto__` that plain assignment would misread. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function asList(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Deep merge of two JSON values: plain objects merge key by key, recursively; any other value
 * (array, string, number, boolean, null) in `next` replaces what `base` had. Neither input is changed.
 */
export function deepMergeJson(base: unknown, next: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(next)) return next;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(next)) setOwn(out, key, Object.hasOwn(out, key) ? deepMergeJson(out[key], value) : value);
  return out;
}

/**
 * Adds one contribution to collected domain data, per top-level key (kind):
 * - `replace`: the contribution's value for a kind replaces the earlier one (last wins);
 * - `append`: every kind holds a list; a contributed list is concatenated element by element, any
 *   other value is added as one element (so `{ k: a }` then `{ k: b }` gives `{ k: [a, b] }`);
 * - `deep-merge`: {@link deepMergeJson} of the earlier value and the contribution.
 *
 * Kinds keep the order in which they first appeared. Neither input is changed. A receiver converging
 * successive envelopes for one `slotKey` can apply the same function to the slot's value.
 */
export function mergeDomainData(collected: JsonObject, contribution: JsonObject, strategy: MergeStrategy): JsonObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(collected)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(contribution)) {
    const had = Object.hasOwn(out, key);
    switch (strategy) {
      case 'replace':
        setOwn(out, key, value);
        break;
      case 'append':
        setOwn(out, key, [...asList(had ? out[key] : undefined), ...asList(value)]);
        break;
      case 'deep-merge':
        setOwn(out, key, had ? deepMergeJson(out[key], value) : value);
        break;
    }
  }
  return out;
}

function eventContribution(event: DataBearingEvent, index: number): JsonObject {
  if (event.kind.length === 0) {
    throw new SwitchboardError('envelope.invalid', `Data-bearing event #${index} has no kind.`, {
      details: { index, source: event.source },
    });
  }
  if (!isPlainObject(event.data)) {
    throw new SwitchboardError('envelope.invalid', `Data of event "${event.kind}" must be a JSON object.`, {
      details: { index, kind: event.kind, source: event.source },
    });
  }
  const contribution: Record<string, unknown> = {};
  setOwn(contribution, event.kind, event.data);
  return contribution;
}

function partContribution(part: Part): JsonObject | undefined {
  if (!isPlainObject(part.data)) return undefined;
  if (part.metadata.partType === DOMAIN_DATA_PART_TYPE) return part.data;
  const contribution: Record<string, unknown> = {};
  setOwn(contribution, part.metadata.partType, part.data);
  return contribution;
}

/**
 * The single `domain-data` part for a turn, with `metadata.mergeStrategy` (always) and
 * `metadata.slotKey` (when given) stamped; `undefined` when nothing contributed data.
 *
 * @throws SwitchboardError `envelope.invalid` when an event has no kind or its data is not a JSON object.
 * @example
 * collectDomainData({ events: [{ kind: 'flight-results', data: { flights: [] } }], slotKey: 'ta.trip' });
 * // { data: { 'flight-results': { flights: [] } },
 * //   metadata: { partType: 'domain-data', mergeStrategy: 'replace', slotKey: 'ta.trip' } }
 */
export function collectDomainData(options: CollectDomainDataOptions): Part | undefined {
  const strategy = options.mergeStrategy ?? DEFAULT_MERGE_STRATEGY;
  const contributions: JsonObject[] = [
    ...(options.events ?? []).map(eventContribution),
    ...(options.parts ?? []).flatMap((part): JsonObject[] => {
      const contribution = partContribution(part);
      return contribution === undefined ? [] : [contribution];
    }),
  ];
  if (contributions.length === 0) return undefined;
  const data = contributions.reduce<JsonObject>((acc, next) => mergeDomainData(acc, next, strategy), {});
  const metadata: PartMetadata =
    options.slotKey === undefined
      ? { partType: DOMAIN_DATA_PART_TYPE, mergeStrategy: strategy }
      : { partType: DOMAIN_DATA_PART_TYPE, mergeStrategy: strategy, slotKey: options.slotKey };
  return { data, metadata };
}
