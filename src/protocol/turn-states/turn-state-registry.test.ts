import { describe, expect, it } from 'vitest';
import { createTurnStateRegistry } from './turn-state-registry.ts';

describe('turn-state registry', () => {
  it.each([
    ['awaiting', false, 'partial', true],
    ['complete', true, 'full', false],
    ['clarifying', true, 'none', false],
    ['error', true, 'none', false],
    ['suspended', false, 'none', true],
    ['delegated', false, 'partial', true],
    ['passed', true, 'none', false],
  ] as const)('%s: terminal=%s envelope=%s holdsActor=%s', (id, isTerminal, emitsEnvelope, holdsActor) => {
    const state = createTurnStateRegistry().require(id);
    expect(state).toMatchObject({ isCanonical: true, isTerminal, emitsEnvelope, holdsActor });
  });

  it('has exactly the seven canonical states', () => {
    expect(createTurnStateRegistry().ids()).toHaveLength(7);
  });

  it('registers a consumer state with the same metadata', () => {
    const registry = createTurnStateRegistry();
    registry.register({ turnState: 'ta.waiting-for-supplier', isTerminal: false, emitsEnvelope: 'none', holdsActor: true });
    expect(registry.require('ta.waiting-for-supplier')).toMatchObject({ isCanonical: false, holdsActor: true });
  });

  it('refuses un-namespaced and duplicate states', () => {
    const registry = createTurnStateRegistry();
    const base = { isTerminal: true, emitsEnvelope: 'none', holdsActor: false } as const;
    expect(() => registry.register({ ...base, turnState: 'done' })).toThrow(
      expect.objectContaining({ code: 'turn_state.invalid_id' }) as Error,
    );
    expect(() => registry.register({ ...base, turnState: 'complete' })).toThrow(
      expect.objectContaining({ code: 'turn_state.invalid_id' }) as Error,
    );
    registry.register({ ...base, turnState: 'ta.done' });
    expect(() => registry.register({ ...base, turnState: 'ta.done' })).toThrow(
      expect.objectContaining({ code: 'turn_state.duplicate' }) as Error,
    );
  });

  it('reports an unknown state with the known ones', () => {
    expect(() => createTurnStateRegistry().require('finished')).toThrow(/Unknown turn state "finished"/);
  });
});
