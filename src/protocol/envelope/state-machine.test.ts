import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors.ts';
import { createStateMachineRegistry, StateMachineRegistry } from './state-machine.ts';
import type { SetStateResult, StateMachineDefinition } from './state-machine.ts';

const booking: StateMachineDefinition = {
  component: 'booking',
  states: ['idle', 'searching', 'held', 'confirmed', 'cancelled'],
  initial: 'idle',
  transitions: { idle: ['searching'], searching: ['held', 'idle'], held: ['confirmed', 'cancelled'] },
  allowHandlerTransitions: true,
};

const billing: StateMachineDefinition = {
  component: 'billing',
  states: ['open', 'paid'],
  initial: 'open',
  transitions: { open: ['paid'] },
  allowHandlerTransitions: false,
};

const registry = createStateMachineRegistry([booking, billing]);

function rejections(result: SetStateResult) {
  if (result.ok) throw new Error('expected a rejection');
  return result.rejections;
}

describe('StateMachineRegistry definitions', () => {
  it('registers frozen copies', () => {
    const defined = registry.get('booking');
    expect(defined).toEqual(booking);
    expect(Object.isFrozen(defined)).toBe(true);
    expect(registry.components()).toEqual(['booking', 'billing']);
  });

  function issuesFor(definition: StateMachineDefinition, into = new StateMachineRegistry()): unknown {
    try {
      into.register(definition);
    } catch (error) {
      expect(error).toBeInstanceOf(SwitchboardError);
      expect((error as SwitchboardError).code).toBe('state.invalid_definition');
      return (error as SwitchboardError).details['issues'];
    }
    throw new Error('expected state.invalid_definition');
  }

  it('refuses inconsistent definitions with every issue listed', () => {
    expect(
      issuesFor({
        component: 'a.b',
        states: ['x', 'x', ''],
        initial: 'z',
        transitions: { y: ['x'], x: ['w'] },
        allowHandlerTransitions: true,
      }),
    ).toEqual([
      'component must be a non-empty name without dots',
      'state "x" is listed twice',
      'state names must be non-empty',
      'initial state "z" is not a state',
      'transitions from unknown state "y"',
      'transition "x" -> "w" goes to an unknown state',
    ]);
    expect(issuesFor({ ...booking, states: [], initial: 'idle', transitions: {} })).toContain('states must not be empty');
  });

  it('refuses a second machine for a component', () => {
    expect(issuesFor(booking, createStateMachineRegistry([booking]))).toEqual(['component "booking" is already registered']);
  });
});

describe('applySetState', () => {
  it('applies a valid patch, starting coordinates at the initial state', () => {
    const current = { 'booking.flight': 'searching' };
    const result = registry.applySetState(current, { 'booking.flight': 'held', 'booking.hotel': 'searching' });
    expect(result).toEqual({
      ok: true,
      state: { 'booking.flight': 'held', 'booking.hotel': 'searching' },
      changed: ['booking.flight', 'booking.hotel'],
    });
    expect(current).toEqual({ 'booking.flight': 'searching' });
  });

  it('runs each coordinate of a component through that component machine independently', () => {
    const result = registry.applySetState({ 'booking.flight': 'held' }, { 'booking.flight': 'confirmed', 'booking.car': 'searching' });
    expect(result.ok).toBe(true);
  });

  it('accepts setting the current state again, changing nothing', () => {
    expect(registry.applySetState({ 'booking.flight': 'held' }, { 'booking.flight': 'held' })).toEqual({
      ok: true,
      state: { 'booking.flight': 'held' },
      changed: [],
    });
  });

  it('applies patches in order, each key from the state the earlier keys left', () => {
    const result = registry.applySetState({}, [{ 'booking.flight': 'searching' }, { 'booking.flight': 'held' }]);
    expect(result).toMatchObject({ ok: true, state: { 'booking.flight': 'held' } });
  });

  it('rejects an unknown component', () => {
    expect(rejections(registry.applySetState({}, { 'loyalty.tier': 'gold' }))).toEqual([
      expect.objectContaining({ key: 'loyalty.tier', reason: 'unknown-component', to: 'gold' }),
    ]);
  });

  it('rejects a handler transition for a component that does not allow it, and allows it for the system', () => {
    expect(rejections(registry.applySetState({}, { 'billing.invoice': 'paid' }))).toEqual([
      expect.objectContaining({ key: 'billing.invoice', reason: 'handler-transitions-not-allowed' }),
    ]);
    expect(registry.applySetState({}, { 'billing.invoice': 'paid' }, { source: 'system' })).toMatchObject({ ok: true });
  });

  it('rejects an illegal transition', () => {
    expect(rejections(registry.applySetState({ 'booking.flight': 'idle' }, { 'booking.flight': 'confirmed' }))).toEqual([
      expect.objectContaining({ key: 'booking.flight', reason: 'illegal-transition', from: 'idle', to: 'confirmed' }),
    ]);
    expect(rejections(registry.applySetState({ 'booking.flight': 'confirmed' }, { 'booking.flight': 'held' }))).toEqual([
      expect.objectContaining({ reason: 'illegal-transition', from: 'confirmed' }),
    ]);
  });

  it('rejects an unknown state', () => {
    expect(rejections(registry.applySetState({}, { 'booking.flight': 'teleported' }))).toEqual([
      expect.objectContaining({ key: 'booking.flight', reason: 'unknown-state', to: 'teleported' }),
    ]);
  });

  it('rejects malformed keys, non-string values and a corrupt current state', () => {
    expect(rejections(registry.applySetState({}, { booking: 'idle', '.x': 'idle', 'booking.': 'idle' })).map((r) => r.reason)).toEqual([
      'invalid-key',
      'invalid-key',
      'invalid-key',
    ]);
    expect(rejections(registry.applySetState({}, { 'booking.flight': 3 }))).toEqual([
      expect.objectContaining({ reason: 'invalid-value' }),
    ]);
    expect(rejections(registry.applySetState({ 'booking.flight': 'lost' }, { 'booking.flight': 'held' }))).toEqual([
      expect.objectContaining({ reason: 'invalid-current-state', from: 'lost' }),
    ]);
  });

  it('does not read inherited properties as transitions', () => {
    const odd = createStateMachineRegistry([
      { component: 'odd', states: ['constructor', 'b'], initial: 'constructor', transitions: {}, allowHandlerTransitions: true },
    ]);
    expect(rejections(odd.applySetState({}, { 'odd.x': 'b' }))).toEqual([expect.objectContaining({ reason: 'illegal-transition' })]);
  });

  it('is all or none: one bad key leaves the whole state unchanged and lists every bad key', () => {
    const current = { 'booking.flight': 'searching' };
    const result = registry.applySetState(current, {
      'booking.flight': 'held',
      'loyalty.tier': 'gold',
      'billing.invoice': 'paid',
      'booking.hotel': 'confirmed',
    });
    expect(result.ok).toBe(false);
    expect(result.state).toBe(current);
    expect(result.state).toEqual({ 'booking.flight': 'searching' });
    expect(rejections(result).map((rejection) => [rejection.key, rejection.reason])).toEqual([
      ['loyalty.tier', 'unknown-component'],
      ['billing.invoice', 'handler-transitions-not-allowed'],
      ['booking.hotel', 'illegal-transition'],
    ]);
  });
});
