import { describe, expect, it } from 'vitest';
import { sameUnlessMasked } from '../replay/masked-args.ts';
import { checkExpectation, matchesPartially, type CaseOutcome } from './expectations.ts';

const OUTCOME: CaseOutcome = {
  toolCalls: [{ name: 'search_flights', args: { origin: 'LHR', date: '2026-12-18', passengers: 2, legs: [{ to: 'CDG' }] }, outcome: 'ok' }],
  approvals: [],
  parts: [{ partType: 'response', text: 'MW 304 leaves at 07:25.' }],
  turnState: 'complete',
};

describe('matchesPartially', () => {
  it('matches the keys it names, patterns written /…/, arrays element by element', () => {
    const args = OUTCOME.toolCalls[0]?.args;
    expect(matchesPartially({ origin: 'LHR' }, args)).toBe(true);
    expect(matchesPartially({ date: '/^2026-12-\\d\\d$/', passengers: 2 }, args)).toBe(true);
    expect(matchesPartially({ legs: [{ to: '/cdg/i' }] }, args)).toBe(true);
    expect(matchesPartially({ origin: 'LGW' }, args)).toBe(false);
    expect(matchesPartially({ legs: [] }, args)).toBe(false);
    expect(matchesPartially({ missing: 'x' }, args)).toBe(false);
  });
});

describe('checkExpectation', () => {
  it('says what held and what was seen', () => {
    expect(checkExpectation({ toolCalled: { name: 'search_flights', args: { origin: 'LHR' } } }, OUTCOME)).toMatchObject({ pass: true });
    expect(checkExpectation({ toolNotCalled: 'search_flights' }, OUTCOME)).toMatchObject({ pass: false, detail: expect.stringContaining('search_flights') as unknown });
    expect(checkExpectation({ approvalRequested: true }, OUTCOME)).toMatchObject({ pass: false, detail: 'no approval asked' });
    expect(checkExpectation({ textContains: { text: '07:25', partType: 'response' } }, OUTCOME)).toMatchObject({ pass: true });
    expect(checkExpectation({ textNotContains: '07:25' }, OUTCOME)).toMatchObject({ pass: false });
    expect(checkExpectation({ turnState: 'clarifying' }, OUTCOME)).toMatchObject({ pass: false, detail: 'ended complete' });
  });
});

describe('sameUnlessMasked', () => {
  it('ignores masked fields on either side, and nothing else', () => {
    expect(sameUnlessMasked({ name: '•••', n: 1 }, { n: 1, name: 'Ada' })).toBe(true);
    expect(sameUnlessMasked([{ fullName: '•••' }], [{ fullName: 'Ada' }, { fullName: 'Bob' }])).toBe(false);
    expect(sameUnlessMasked({ n: 1 }, { n: 2 })).toBe(false);
  });
});
