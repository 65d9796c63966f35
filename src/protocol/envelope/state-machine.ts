/**
 * State machines for session state coordinates, and the atomic application of `setState` patches.
 *
 * Session state is a flat map from coordinate keys to state names. A key is
 * `<component>.<coordinate>`: the text before the first dot names a registered component, the rest
 * (non-empty, may itself contain dots) names one coordinate of it. Every coordinate of a component
 * runs that component's machine, so `booking.flight` and `booking.hotel` both move through the
 * `booking` machine's states independently. A coordinate missing from the current state is in the
 * machine's `initial` state.
 */

import { SwitchboardError } from '../errors.ts';

/** One component's state machine, as configured. */
export interface StateMachineDefinition {
  /** Component name: non-empty, no dot (dots separate the component from the coordinate). */
  readonly component: string;
  /** Every state name, distinct and non-empty. */
  readonly states: readonly string[];
  /** The state of a coordinate that has none yet; one of `states`. */
  readonly initial: string;
  /** Legal moves: from a state to the states it may go to. A state without an entry is final. */
  readonly transitions: Readonly<Record<string, readonly string[]>>;
  /** Whether an actor's (handler's) `setState` part may move this component. */
  readonly allowHandlerTransitions: boolean;
}

/** Session state: `<component>.<coordinate>` → state name. */
export type StateCoordinates = Readonly<Record<string, string>>;

/** Who proposes a patch: an actor's `setState` part (`handler`), or switchboard itself (`system`). */
export type TransitionSource = 'handler' | 'system';

/** Why one key of a patch was refused. */
export type SetStateRejectionReason =
  | 'invalid-key'
  | 'invalid-value'
  | 'unknown-component'
  | 'handler-transitions-not-allowed'
  | 'unknown-state'
  | 'invalid-current-state'
  | 'illegal-transition';

/** One refused key of a patch. */
export interface SetStateRejection {
  readonly key: string;
  readonly reason: SetStateRejectionReason;
  readonly message: string;
  /** The coordinate's state before the patch, when known. */
  readonly from?: string;
  /** The proposed state, when it is a string. */
  readonly to?: string;
}

/** Result of {@link StateMachineRegistry.applySetState}. */
export type SetStateResult =
  | { readonly ok: true; readonly state: StateCoordinates; readonly changed: readonly string[] }
  | { readonly ok: false; readonly state: StateCoordinates; readonly rejections: readonly SetStateRejection[] };

/** Options of {@link StateMachineRegistry.applySetState}. */
export interface ApplySetStateOptions {
  /** Who proposes the patches. Default `handler`, which needs `allowHandlerTransitions`. */
  readonly source?: TransitionSource;
}

function definitionIssues(definition: StateMachineDefinition): string[] {
  const issues: string[] = [];
  if (definition.component.length === 0 || definition.component.includes('.')) {
    issues.push('component must be a non-empty name without dots');
  }
  if (definition.states.length === 0) issues.push('states must not be empty');
  const states = new Set<string>();
  for (const state of definition.states) {
    if (state.length === 0) issues.push('state names must be non-empty');
    if (states.has(state)) issues.push(`state "${state}" is listed twice`);
    states.add(state);
  }
  if (!states.has(definition.initial)) issues.push(`initial state "${definition.initial}" is not a state`);
  for (const [from, targets] of Object.entries(definition.transitions)) {
    if (!states.has(from)) issues.push(`transitions from unknown state "${from}"`);
    for (const to of targets) {
      if (!states.has(to)) issues.push(`transition "${from}" -> "${to}" goes to an unknown state`);
    }
  }
  return issues;
}

function freeze(definition: StateMachineDefinition): StateMachineDefinition {
  const transitions: Record<string, readonly string[]> = {};
  for (const [from, targets] of Object.entries(definition.transitions)) {
    Object.defineProperty(transitions, from, { value: Object.freeze([...targets]), enumerable: true });
  }
  return Object.freeze({
    component: definition.component,
    states: Object.freeze([...definition.states]),
    initial: definition.initial,
    transitions: Object.freeze(transitions),
    allowHandlerTransitions: definition.allowHandlerTransitions,
  });
}

/** The configured state machines, one per component. Create one with {@link createStateMachineRegistry}. */
export class StateMachineRegistry {
  readonly #machines = new Map<string, StateMachineDefinition>();

  /**
   * Registers a component's machine (a frozen copy).
   * @throws SwitchboardError `state.invalid_definition` (details: `component`, `issues`) when the
   *   definition is inconsistent or the component is already registered.
   */
  register(definition: StateMachineDefinition): StateMachineDefinition {
    const issues = definitionIssues(definition);
    if (this.#machines.has(definition.component)) issues.push(`component "${definition.component}" is already registered`);
    if (issues.length > 0) {
      throw new SwitchboardError('state.invalid_definition', `Invalid state machine "${definition.component}".`, {
        details: { component: definition.component, issues },
      });
    }
    const frozen = freeze(definition);
    this.#machines.set(frozen.component, frozen);
    return frozen;
  }

  /** The machine of `component`, or `undefined`. */
  get(component: string): StateMachineDefinition | undefined {
    return this.#machines.get(component);
  }

  /** Every registered component, in registration order. */
  components(): string[] {
    return [...this.#machines.keys()];
  }

  /**
   * Applies `setState` patches, in order, all or none. Every key of every patch is checked against the
   * state left by the earlier keys: the component must be registered, it must allow handler
   * transitions (for source `handler`), the value must be one of its states, and the move from the
   * coordinate's current state must be listed in `transitions`. Setting a coordinate to the state it is
   * already in is accepted and changes nothing. When any key is refused, no key is applied: the
   * result carries the original `current` unchanged and a rejection for every refused key.
   *
   * @param current The session state before the patches; not modified.
   * @param patches Patches as they arrive in `setState` part `data` (values are checked to be strings).
   */
  applySetState(
    current: StateCoordinates,
    patches: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[],
    options: ApplySetStateOptions = {},
  ): SetStateResult {
    const source = options.source ?? 'handler';
    const list = Array.isArray(patches) ? (patches as readonly Readonly<Record<string, unknown>>[]) : [patches];
    const working = new Map<string, string>(Object.entries(current));
    const rejections: SetStateRejection[] = [];
    const changed: string[] = [];
    for (const patch of list) {
      for (const [key, value] of Object.entries(patch)) {
        const rejection = this.#check(key, value, working, source);
        if (rejection !== undefined) {
          rejections.push(rejection);
          continue;
        }
        const to = value as string;
        if (working.get(key) !== to) {
          working.set(key, to);
          if (!changed.includes(key)) changed.push(key);
        }
      }
    }
    if (rejections.length > 0) return { ok: false, state: current, rejections };
    const state: Record<string, string> = {};
    for (const [key, value] of working) Object.defineProperty(state, key, { value, enumerable: true, writable: true, configurable: true });
    return { ok: true, state, changed };
  }

  #check(key: string, value: unknown, working: ReadonlyMap<string, string>, source: TransitionSource): SetStateRejection | undefined {
    const dot = key.indexOf('.');
    if (dot <= 0 || dot === key.length - 1) {
      return { key, reason: 'invalid-key', message: `"${key}" is not "<component>.<coordinate>".` };
    }
    const to = typeof value === 'string' ? value : undefined;
    const withTo = to === undefined ? {} : { to };
    const component = key.slice(0, dot);
    const machine = this.#machines.get(component);
    if (machine === undefined) {
      return { key, reason: 'unknown-component', message: `No state machine for component "${component}".`, ...withTo };
    }
    if (source === 'handler' && !machine.allowHandlerTransitions) {
      return {
        key,
        reason: 'handler-transitions-not-allowed',
        message: `Component "${component}" does not accept transitions from handlers.`,
        ...withTo,
      };
    }
    if (to === undefined) {
      return { key, reason: 'invalid-value', message: `The new state of "${key}" must be a string.` };
    }
    if (!machine.states.includes(to)) {
      return { key, reason: 'unknown-state', message: `"${to}" is not a state of "${component}".`, to };
    }
    const from = working.get(key) ?? machine.initial;
    if (!machine.states.includes(from)) {
      return {
        key,
        reason: 'invalid-current-state',
        message: `The current state "${from}" of "${key}" is not a state of "${component}".`,
        from,
        to,
      };
    }
    if (from === to) return undefined;
    const targets = Object.hasOwn(machine.transitions, from) ? machine.transitions[from] : undefined;
    if (!(targets ?? []).includes(to)) {
      return { key, reason: 'illegal-transition', message: `"${key}" may not go from "${from}" to "${to}".`, from, to };
    }
    return undefined;
  }
}

/**
 * A registry holding `definitions`.
 * @throws SwitchboardError `state.invalid_definition` for the first inconsistent definition.
 */
export function createStateMachineRegistry(definitions: readonly StateMachineDefinition[] = []): StateMachineRegistry {
  const registry = new StateMachineRegistry();
  for (const definition of definitions) registry.register(definition);
  return registry;
}
