import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../model/model-types.ts';
import { historyChange, listChars, noteAppended, type KnownHistory } from './history-list.ts';

const say = (text: string, role: 'user' | 'assistant' = 'user'): ModelMessage => ({ role, content: [{ type: 'text', text }] });

function known(messages: readonly ModelMessage[]): KnownHistory {
  return { version: 'v', messages, sizes: messages.map((message) => JSON.stringify(message).length) };
}

/** What the stored list holds after `change` is applied to `base`'s list, as the finish script does. */
function applied(base: readonly ModelMessage[], change: ReturnType<typeof historyChange>): string[] {
  const list = base.map((message) => JSON.stringify(message)).slice(change.drop);
  if (change.first !== undefined) list[0] = change.first;
  return [...list, ...change.append];
}

describe('history list changes', () => {
  const [a, b, c, d] = [say('a'), say('b', 'assistant'), say('c'), say('d', 'assistant')];

  it('appends only the new messages when the history grew', () => {
    const change = historyChange(known([a, b]), [a, b, c, d]);
    expect(change).toEqual({ drop: 0, append: [JSON.stringify(c), JSON.stringify(d)], sizes: known([a, b, c, d]).sizes });
  });

  it('drops from the front what the trimming cut, and rewrites the first kept message when it changed', () => {
    expect(historyChange(known([a, b, c]), [c, d])).toMatchObject({ drop: 2, append: [JSON.stringify(d)] });
    const rewritten = say('c without tool results');
    expect(historyChange(known([a, b, c, d]), [rewritten, d])).toEqual({ drop: 2, first: JSON.stringify(rewritten), append: [], sizes: known([rewritten, d]).sizes });
  });

  it('stores everything again when the new history does not continue the old one', () => {
    expect(historyChange(known([a, b]), [c, a])).toMatchObject({ drop: 2, append: [JSON.stringify(c), JSON.stringify(a)] });
    expect(historyChange(known([a, b, c]), [a, b])).toMatchObject({ drop: 3 });
    expect(historyChange(known([]), [a])).toMatchObject({ drop: 0, append: [JSON.stringify(a)] });
  });

  it('takes a list noted as appended to the base as it was noted, once, and compares lists otherwise', () => {
    const base = known([a, b]);
    const next = [a, b, c];
    noteAppended(next, base.messages, ['"as noted"']);
    expect(historyChange(base, next)).toEqual({ drop: 0, append: ['"as noted"'], sizes: [...base.sizes, '"as noted"'.length] });
    // Used once: asked again, the lists are compared.
    expect(historyChange(base, next)).toEqual({ drop: 0, append: [JSON.stringify(c)], sizes: known(next).sizes });
    // Noted against another base, or with a count that does not add up: compared too.
    const other = [a, b, d];
    noteAppended(other, [a], ['"x"', '"y"']);
    expect(historyChange(base, other).append).toEqual([JSON.stringify(d)]);
    const short = [a, b, c, d];
    noteAppended(short, base.messages, ['"x"']);
    expect(historyChange(base, short).append).toEqual([JSON.stringify(c), JSON.stringify(d)]);
  });

  it('measures a list as JSON.stringify does', () => {
    for (const list of [[], [a], [a, b, c]]) expect(listChars(known(list).sizes)).toBe(JSON.stringify(list).length);
  });

  it('always yields the new history, with its sizes, from any old one (property)', () => {
    const pool = Array.from({ length: 8 }, (_, index) => say(`m${index}`, index % 2 === 0 ? 'user' : 'assistant'));
    const history = fc.array(fc.constantFrom(...pool), { maxLength: 8 });
    fc.assert(
      fc.property(history, fc.nat(10), fc.boolean(), history, (base, cut, rewrite, added) => {
        const kept = base.slice(Math.min(cut, base.length));
        const next = [...(rewrite && kept.length > 0 ? [say('rewritten'), ...kept.slice(1)] : kept), ...added];
        const change = historyChange(known(base), next);
        expect(applied(base, change)).toEqual(next.map((message) => JSON.stringify(message)));
        expect(change.sizes).toEqual(known(next).sizes);
      }),
      { numRuns: 2000 },
    );
  });
});
