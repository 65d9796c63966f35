/**
 * The part: one typed piece of an actor's output, in the A2A Message Part shape with switchboard's
 * `partType` metadata tag.
 */

/** Metadata carried by every part. `partType` names a registered part type. */
export interface PartMetadata {
  /** A registered part type id, e.g. `response` or `ta.itinerary-slot-state`. */
  readonly partType: string;
  /** Stamped on `domain-data` parts by the envelope builder: the destination slot's identity. */
  readonly slotKey?: string;
  /** Stamped on `domain-data` parts by the envelope builder. */
  readonly mergeStrategy?: MergeStrategy;
  readonly [key: string]: unknown;
}

/** How successive `domain-data` for one slot combine. */
export type MergeStrategy = 'replace' | 'append' | 'deep-merge';

/** A JSON object, as carried by a data part. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** One part: text, data, or both, tagged with its part type. */
export interface Part {
  readonly text?: string;
  readonly data?: JsonObject;
  readonly metadata: PartMetadata;
}

/** The two delivery classes every transport falls in. */
export type DeliveryClass = 'streaming' | 'buffered';

/**
 * What a streaming transport does with a part:
 * - `flush`: send at once, each occurrence;
 * - `stream`: send progressively as it arrives (text deltas where the transport can);
 * - `once`: send once, when it becomes available;
 * - `at-settlement`: produced and sent once, when the turn settles;
 * - `url-reference`: send a URL reference rather than bytes;
 * - `audit-only`, `inbound-only`, `strip`: never sent outward.
 */
export type StreamingDelivery =
  | 'flush'
  | 'stream'
  | 'once'
  | 'at-settlement'
  | 'url-reference'
  | 'audit-only'
  | 'inbound-only'
  | 'strip';

/**
 * What a buffered transport does with a part:
 * - `flush`: send at once, without waiting for settlement;
 * - `render`: its final value is rendered at settlement;
 * - `at-settlement`: held and sent once, at settlement;
 * - `final-state`: only the last state is rendered, where the transport can;
 * - `attachment`: bytes go as an attachment (or a URL where the channel has none);
 * - `drop`, `audit-only`, `inbound-only`, `strip`: never sent outward.
 */
export type BufferedDelivery =
  | 'flush'
  | 'render'
  | 'at-settlement'
  | 'final-state'
  | 'attachment'
  | 'drop'
  | 'audit-only'
  | 'inbound-only'
  | 'strip';

/** A part type's delivery rule for each transport class. */
export interface DeliveryRules {
  readonly streaming: StreamingDelivery;
  readonly buffered: BufferedDelivery;
}

const NEVER_SENT: ReadonlySet<string> = new Set(['drop', 'audit-only', 'inbound-only', 'strip']);

/** Whether a rule ever sends the part outward on its transport class. */
export function ruleDelivers(rule: StreamingDelivery | BufferedDelivery): boolean {
  return !NEVER_SENT.has(rule);
}
