import { SwitchboardError } from '../errors.ts';
import { NAMESPACED_ID } from '../parts/part-type-registry.ts';

/**
 * Whether a turn state builds an envelope: `full` at settlement, `partial` (parts stream while the
 * turn goes on), or `none`.
 */
export type EnvelopeEmission = 'full' | 'partial' | 'none';

/** A turn state as registered. */
export interface TurnStateDefinition {
  /** Canonical ids are bare (`complete`); consumer ids are namespaced `slug.name`. */
  readonly turnState: string;
  readonly isCanonical: boolean;
  /** Whether the current actor's turn ends in this state. */
  readonly isTerminal: boolean;
  /** Whether, and how, the state emits an envelope. */
  readonly emitsEnvelope: EnvelopeEmission;
  /** Whether the session stays bound to this actor (no other turn of the session may start). */
  readonly holdsActor: boolean;
  readonly description?: string;
}

/** What a consumer passes to {@link TurnStateRegistry.register}. */
export type TurnStateRegistration = Omit<TurnStateDefinition, 'isCanonical'>;

/** The seven canonical turn states. */
export const CANONICAL_TURN_STATES: readonly TurnStateRegistration[] = [
  {
    turnState: 'awaiting',
    isTerminal: false,
    emitsEnvelope: 'partial',
    holdsActor: true,
    description: 'More respond() calls or tool results are expected in this turn.',
  },
  {
    turnState: 'complete',
    isTerminal: true,
    emitsEnvelope: 'full',
    holdsActor: false,
    description: 'The turn is settled; the envelope is built.',
  },
  {
    turnState: 'clarifying',
    isTerminal: true,
    emitsEnvelope: 'none',
    holdsActor: false,
    description: 'A question for the user; no envelope.',
  },
  {
    turnState: 'error',
    isTerminal: true,
    emitsEnvelope: 'none',
    holdsActor: false,
    description: 'The turn failed.',
  },
  {
    turnState: 'suspended',
    isTerminal: false,
    emitsEnvelope: 'none',
    holdsActor: true,
    description: 'A tool call waits for human approval; the turn resumes on the decision.',
  },
  {
    turnState: 'delegated',
    isTerminal: false,
    emitsEnvelope: 'partial',
    holdsActor: true,
    description: 'A peer agent works on the turn; its envelope streams through.',
  },
  {
    turnState: 'passed',
    isTerminal: true,
    emitsEnvelope: 'none',
    holdsActor: false,
    description: 'Handed to the actor named in passTo, which inherits the mailbox.',
  },
];

/** The open registry of turn states. Create one with {@link createTurnStateRegistry}. */
export class TurnStateRegistry {
  readonly #states = new Map<string, TurnStateDefinition>();

  constructor() {
    for (const state of CANONICAL_TURN_STATES) this.#add({ ...state, isCanonical: true });
  }

  /**
   * Registers a consumer turn state.
   * @throws SwitchboardError `turn_state.invalid_id` (not `slug.name`), `turn_state.duplicate`
   */
  register(registration: TurnStateRegistration): TurnStateDefinition {
    if (!NAMESPACED_ID.test(registration.turnState)) {
      throw new SwitchboardError(
        'turn_state.invalid_id',
        `Turn state "${registration.turnState}" must be namespaced as "slug.name" (lowercase).`,
        { details: { turnState: registration.turnState } },
      );
    }
    return this.#add({ ...registration, isCanonical: false });
  }

  #add(definition: TurnStateDefinition): TurnStateDefinition {
    if (this.#states.has(definition.turnState)) {
      throw new SwitchboardError('turn_state.duplicate', `Turn state "${definition.turnState}" is already registered.`, {
        details: { turnState: definition.turnState },
      });
    }
    const frozen = Object.freeze({ ...definition });
    this.#states.set(definition.turnState, frozen);
    return frozen;
  }

  /** The definition of `turnState`, or `undefined`. */
  get(turnState: string): TurnStateDefinition | undefined {
    return this.#states.get(turnState);
  }

  /**
   * The definition of `turnState`.
   * @throws SwitchboardError `turn_state.unknown`
   */
  require(turnState: string): TurnStateDefinition {
    const found = this.#states.get(turnState);
    if (found === undefined) {
      throw new SwitchboardError('turn_state.unknown', `Unknown turn state "${turnState}".`, {
        details: { turnState, known: this.ids() },
      });
    }
    return found;
  }

  /** Whether `turnState` is registered. */
  has(turnState: string): boolean {
    return this.#states.has(turnState);
  }

  /** Every registered id, canonical first. */
  ids(): string[] {
    return [...this.#states.keys()];
  }
}

/** A registry holding the seven canonical states. */
export function createTurnStateRegistry(): TurnStateRegistry {
  return new TurnStateRegistry();
}
