import { SwitchboardError } from '../errors.ts';
import type { DeliveryRules } from './part.ts';

/** A part type as registered. */
export interface PartTypeDefinition {
  /** Canonical ids are bare (`response`); consumer ids are namespaced `slug.name`. */
  readonly partType: string;
  /** True only for the part types switchboard ships. */
  readonly isCanonical: boolean;
  /** Delivery rule per transport class. */
  readonly deliveryRules: DeliveryRules;
  /** Transport ids (e.g. `sse`, `email`) allowed to carry the part. Unset: every transport. */
  readonly allowedTransports?: readonly string[];
  /** When true, a peer receives the part only if its Agent Card lists it in `envelopeConsumes`. */
  readonly requiresPeerConsumes?: boolean;
  /** Whether the part carries data for the envelope (collected into `domain-data` at settlement). */
  readonly dataBearing?: boolean;
  /** One line for humans and for the system prompt. */
  readonly description?: string;
}

/** What a consumer passes to {@link PartTypeRegistry.register}. */
export type PartTypeRegistration = Omit<PartTypeDefinition, 'isCanonical'>;

/** Consumer-registered ids: a lowercase slug, a dot, a lowercase name (`ta.itinerary-slot-state`). */
export const NAMESPACED_ID = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)*$/;

/**
 * The open registry of part types: the canonical set plus what consumers register at start-up.
 * Create one with `createPartTypeRegistry()`.
 */
export class PartTypeRegistry {
  readonly #types = new Map<string, PartTypeDefinition>();

  /** @internal Used by the canonical set only; consumers call {@link register}. */
  registerCanonical(definition: Omit<PartTypeDefinition, 'isCanonical'>): void {
    this.#add({ ...definition, isCanonical: true });
  }

  /**
   * Registers a consumer part type.
   * @throws SwitchboardError `part_type.invalid_id` when the id is not namespaced, `part_type.duplicate`
   *   when it is taken.
   */
  register(registration: PartTypeRegistration): PartTypeDefinition {
    if (!NAMESPACED_ID.test(registration.partType)) {
      throw new SwitchboardError(
        'part_type.invalid_id',
        `Part type "${registration.partType}" must be namespaced as "slug.name" (lowercase, e.g. "ta.itinerary-slot-state").`,
        { details: { partType: registration.partType } },
      );
    }
    return this.#add({ ...registration, isCanonical: false });
  }

  #add(definition: PartTypeDefinition): PartTypeDefinition {
    if (this.#types.has(definition.partType)) {
      throw new SwitchboardError('part_type.duplicate', `Part type "${definition.partType}" is already registered.`, {
        details: { partType: definition.partType },
      });
    }
    const frozen = Object.freeze({ ...definition });
    this.#types.set(definition.partType, frozen);
    return frozen;
  }

  /** The definition of `partType`, or `undefined` when not registered. */
  get(partType: string): PartTypeDefinition | undefined {
    return this.#types.get(partType);
  }

  /**
   * The definition of `partType`.
   * @throws SwitchboardError `part_type.unknown`
   */
  require(partType: string): PartTypeDefinition {
    const found = this.#types.get(partType);
    if (found === undefined) {
      throw new SwitchboardError('part_type.unknown', `Unknown part type "${partType}".`, {
        details: { partType, known: this.ids() },
      });
    }
    return found;
  }

  /** Whether `partType` is registered. */
  has(partType: string): boolean {
    return this.#types.has(partType);
  }

  /** Every registered id, canonical first, in registration order. */
  ids(): string[] {
    return [...this.#types.keys()];
  }

  /** Every registered definition, in registration order. */
  all(): PartTypeDefinition[] {
    return [...this.#types.values()];
  }
}
