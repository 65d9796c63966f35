/**
 * The response envelope: what a turn settles into, as an A2A-style message (`role`, `parts`) plus
 * switchboard's non-standard `meta` block for correlation and audit. Peers that only know A2A ignore
 * `meta`.
 */

import type { Part } from '../parts/part.ts';

/** Correlation and audit facts of an envelope. */
export interface EnvelopeMeta {
  /** The session the turn belongs to. */
  readonly sessionId: string;
  /** The turn (actor invocation) that produced the envelope. */
  readonly turnId: string;
  /** When the envelope was built: an ISO 8601 UTC date-time from the injected clock. */
  readonly producedAt: string;
  /** The turn state id that settled the turn, e.g. `complete`. */
  readonly finalizedBy: string;
}

/** One turn's response envelope. See `buildEnvelope` for the order of `parts`. */
export interface Envelope {
  readonly role: 'agent';
  /** Typed parts, each tagged with `metadata.partType`. */
  readonly parts: Part[];
  readonly meta: EnvelopeMeta;
}

/**
 * A data-bearing event from the turn's mailbox, e.g. a tool's structured result. The builder folds
 * every such event into the envelope's single `domain-data` part, under `kind`.
 */
export interface DataBearingEvent {
  /** What the data is, e.g. `flight-results`. Also selects the surface template. */
  readonly kind: string;
  /** The data itself: a JSON object. */
  readonly data: object;
  /** Where it came from (a tool name, an event id), for logs. Not copied into the envelope. */
  readonly source?: string;
}
