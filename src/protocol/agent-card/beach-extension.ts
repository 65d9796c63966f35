/**
 * The Beach extension of the A2A Agent Card: one entry in `capabilities.extensions` whose
 * `params.envelopeConsumes` lists the envelope part types the agent accepts.
 */

import type { AgentExtension } from '@a2a-js/sdk';

/**
 * URI of the Beach extension in `capabilities.extensions`. The only place this string is written;
 * every other module imports it from here.
 */
export const BEACH_EXTENSION_URI = 'https://beach.cool-ai.io/extensions/v1';

/** `params` of the Beach extension. */
export interface BeachExtensionParams {
  /** Part types (e.g. `domain-data`, `llm-context`, `ta.itinerary-slot-state`) the agent accepts. */
  envelopeConsumes: string[];
}

/** The Beach extension entry, as it appears in `capabilities.extensions`. */
export interface AgentCardBeachExtension extends AgentExtension {
  uri: typeof BEACH_EXTENSION_URI;
  required: false;
  params: BeachExtensionParams;
}

/**
 * The Beach extension entry declaring `envelopeConsumes`: not required (peers that do not know it
 * may ignore it), with a fixed one-line description.
 */
export function beachExtension(envelopeConsumes: readonly string[]): AgentCardBeachExtension {
  return {
    uri: BEACH_EXTENSION_URI,
    description: 'Beach envelope: the part types this agent accepts in a response envelope.',
    required: false,
    params: { envelopeConsumes: [...envelopeConsumes] },
  };
}

/** The part of a card {@link beachEnvelopeConsumes} reads; every `AgentCard` fits. */
export interface CardWithExtensions {
  readonly capabilities?:
    | { readonly extensions?: readonly Pick<AgentExtension, 'uri' | 'params'>[] | undefined }
    | undefined;
}

/**
 * The part types a card's Beach extension lists in `envelopeConsumes`, in card order. Empty when the
 * card has no Beach extension (a non-Beach peer) or the extension lists nothing. Tolerant of
 * unvalidated cards: entries that are not strings are ignored.
 */
export function beachEnvelopeConsumes(card: CardWithExtensions): string[] {
  const extension = card.capabilities?.extensions?.find((entry) => entry.uri === BEACH_EXTENSION_URI);
  const params: unknown = extension?.params;
  if (typeof params !== 'object' || params === null) return [];
  const consumes: unknown = (params as Readonly<Record<string, unknown>>)['envelopeConsumes'];
  if (!Array.isArray(consumes)) return [];
  return consumes.filter((entry): entry is string => typeof entry === 'string');
}
