import { describe, expect, it } from 'vitest';
import { sampleInjection } from '../../../queues/queue-test-kit.ts';
import { acceptedInjections } from './accepted-injections.ts';

describe('accepted injections', () => {
  it('offers a session\'s oldest until a begin moved it, and forgets what was accepted before the one moved', () => {
    const accepted = acceptedInjections();
    const [one, , three] = ['m1', 'm2', 'm3'].map((id) => accepted.stored('s1', sampleInjection(id)));
    accepted.stored('s2', sampleInjection('other'));
    expect(one).toBe(JSON.stringify(sampleInjection('m1')));
    expect(accepted.oldest('s1')?.injection.id).toBe('m1');
    // A begin elsewhere took m1 and m2; this one moved m2, read back from Redis as a new string.
    accepted.moved('s1', JSON.stringify(sampleInjection('m2')));
    expect(accepted.oldest('s1')?.json).toBe(three);
    // What no accept here stored changes nothing.
    accepted.moved('s1', JSON.stringify(sampleInjection('m9')));
    expect(accepted.oldest('s1')?.injection.id).toBe('m3');
    accepted.moved('s1', three ?? '');
    expect(accepted.oldest('s1')).toBeUndefined();
    expect(accepted.oldest('s2')?.injection.id).toBe('other');
  });

  it('forgets an injection its accept did not store, wherever it stands', () => {
    const accepted = acceptedInjections();
    const first = accepted.stored('s1', sampleInjection('m1'));
    const repeat = accepted.stored('s1', sampleInjection('m1', { receivedAt: '2026-01-01T00:00:05.000Z' }));
    accepted.notStored('s1', repeat);
    expect(accepted.oldest('s1')?.json).toBe(first);
    accepted.notStored('s1', first);
    expect(accepted.oldest('s1')).toBeUndefined();
  });

  it('forgets the later of two accepts stored as the same JSON when the later stored nothing', () => {
    const accepted = acceptedInjections();
    const first = accepted.stored('s1', sampleInjection('m1'));
    const second = accepted.stored('s1', sampleInjection('m2'));
    // The same message sent again, to the byte: its accept finds it stored and stores nothing.
    accepted.notStored('s1', accepted.stored('s1', sampleInjection('m1')));
    expect(accepted.oldest('s1')?.json).toBe(first);
    accepted.moved('s1', first);
    expect(accepted.oldest('s1')?.json).toBe(second);
  });

  it('remembers 32 injections a session and the most recently accepted-into sessions', () => {
    const accepted = acceptedInjections(2);
    for (let n = 0; n < 40; n += 1) accepted.stored('busy', sampleInjection(`b${String(n)}`));
    // The 33rd and later were not remembered: moving the 32nd leaves nothing.
    accepted.moved('busy', JSON.stringify(sampleInjection('b31')));
    expect(accepted.oldest('busy')).toBeUndefined();
    accepted.stored('a', sampleInjection('a1'));
    accepted.stored('b', sampleInjection('b1'));
    // Accepted into again, `a` is newer than `b`, which goes first.
    accepted.stored('a', sampleInjection('a2'));
    accepted.stored('c', sampleInjection('c1'));
    expect(accepted.oldest('b')).toBeUndefined();
    expect(accepted.oldest('a')?.injection.id).toBe('a1');
    expect(accepted.oldest('c')?.injection.id).toBe('c1');
  });
});
