/**
 * Which parts of an envelope one transport may carry, from the part types' registered delivery rules.
 *
 * A part is kept when all of these hold, checked in this order (the first that fails is the reason):
 * 1. its part type is registered (`unknown-part-type`);
 * 2. the rule for the transport's delivery class sends it outward: `ruleDelivers(rule)` is true, so
 *    not `drop`, `strip`, `audit-only` or `inbound-only` (`delivery-rule`). With the canonical rules a
 *    buffered transport never gets `ack`, `thinking`, `progress` or `setState`;
 * 3. when the type lists `allowedTransports`, the transport's id is among them (`transport-not-allowed`);
 * 4. when the type has `requiresPeerConsumes` and the transport is a peer, the peer's
 *    `envelopeConsumes` lists the type (`peer-not-consuming`). A transport without `peer` (a local UI,
 *    email, SMS, ...) is not restricted by this rule.
 * Kept parts keep their order; nothing is dropped silently.
 */

import type { AgentCard } from '@a2a-js/sdk';
import { beachEnvelopeConsumes } from '../agent-card/beach-extension.ts';
import type { CardWithExtensions } from '../agent-card/beach-extension.ts';
import { ruleDelivers } from '../parts/part.ts';
import type { DeliveryClass, Part } from '../parts/part.ts';
import type { PartTypeRegistry } from '../parts/part-type-registry.ts';

/** One way parts leave switchboard. */
export interface Transport {
  /** Transport id as used in `allowedTransports`, e.g. `sse`, `email`, `sms`, `a2a`. */
  readonly id: string;
  /** `streaming` transports send parts as they come; `buffered` ones send once, at settlement. */
  readonly deliveryClass: DeliveryClass;
  /** Set when the receiver is a peer agent: the part types its Agent Card accepts. */
  readonly peer?: { readonly envelopeConsumes: readonly string[] };
}

/** Why a part was not kept for a transport. */
export type DropReason = 'unknown-part-type' | 'delivery-rule' | 'transport-not-allowed' | 'peer-not-consuming';

/** A part that was not kept, with the reason. */
export interface DroppedPart {
  readonly part: Part;
  readonly reason: DropReason;
}

/** Result of {@link filterForTransport}. */
export interface FilteredParts {
  /** The kept parts, in input order. */
  readonly parts: Part[];
  /** The parts not kept, in input order. */
  readonly dropped: DroppedPart[];
}

/** Why `part` may not go over `transport`, or `undefined` when it may. */
export function dropReason(part: Part, transport: Transport, registry: PartTypeRegistry): DropReason | undefined {
  const partType: unknown = part.metadata.partType;
  const definition = typeof partType === 'string' ? registry.get(partType) : undefined;
  if (definition === undefined) return 'unknown-part-type';
  if (!ruleDelivers(definition.deliveryRules[transport.deliveryClass])) return 'delivery-rule';
  if (definition.allowedTransports !== undefined && !definition.allowedTransports.includes(transport.id)) {
    return 'transport-not-allowed';
  }
  if (definition.requiresPeerConsumes === true && transport.peer !== undefined) {
    if (!transport.peer.envelopeConsumes.includes(definition.partType)) return 'peer-not-consuming';
  }
  return undefined;
}

/**
 * Splits `parts` into what `transport` carries and what it does not (see the module comment for the
 * rules).
 *
 * @example
 * const { parts, dropped } = filterForTransport(envelope.parts, { id: 'email', deliveryClass: 'buffered' }, partTypes);
 */
export function filterForTransport(
  parts: readonly Part[],
  transport: Transport,
  registry: PartTypeRegistry,
): FilteredParts {
  const kept: Part[] = [];
  const dropped: DroppedPart[] = [];
  for (const part of parts) {
    const reason = dropReason(part, transport, registry);
    if (reason === undefined) kept.push(part);
    else dropped.push({ part, reason });
  }
  return { parts: kept, dropped };
}

/**
 * A peer transport for an agent whose card is `card`: its `envelopeConsumes` comes from the card's
 * Beach extension (empty for a non-Beach peer, which then gets no `requiresPeerConsumes` part).
 */
export function peerTransport(
  id: string,
  deliveryClass: DeliveryClass,
  card: AgentCard | CardWithExtensions,
): Transport {
  return { id, deliveryClass, peer: { envelopeConsumes: beachEnvelopeConsumes(card) } };
}
