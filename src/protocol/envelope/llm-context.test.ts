import { describe, expect, it, vi } from 'vitest';
import { BEACH_EXTENSION_URI, beachExtension } from '../agent-card/beach-extension.ts';
import { cacheTranslationsByTurn, originatorsWantLlmContext } from './llm-context.ts';
import type { LlmContextInput, LlmContextTranslator } from './llm-context.ts';

const beachPeer = (consumes: string[]) => ({ capabilities: { extensions: [beachExtension(consumes)] } });
const nonBeachPeer = { capabilities: { extensions: [{ uri: 'https://example.com/other', params: { envelopeConsumes: ['llm-context'] } }] } };

const input = (turnId: string): LlmContextInput => ({ responseText: 'Two flights.', domainData: undefined, sessionId: 's', turnId });

describe('originatorsWantLlmContext', () => {
  it('is true when a Beach peer lists llm-context', () => {
    expect(originatorsWantLlmContext([beachPeer(['domain-data', 'llm-context'])])).toBe(true);
    expect(originatorsWantLlmContext([nonBeachPeer, beachPeer(['llm-context'])])).toBe(true);
  });

  it('is false for no originators, a non-Beach peer, or a Beach peer that does not list it', () => {
    expect(originatorsWantLlmContext([])).toBe(false);
    expect(originatorsWantLlmContext([nonBeachPeer])).toBe(false);
    expect(originatorsWantLlmContext([beachPeer(['domain-data'])])).toBe(false);
    expect(originatorsWantLlmContext([{ capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI, params: undefined }] } }])).toBe(false);
  });
});

describe('cacheTranslationsByTurn', () => {
  it('translates each turn once', async () => {
    const translate = vi.fn((request: LlmContextInput) => Promise.resolve(`about ${request.turnId}`));
    const cached = cacheTranslationsByTurn({ translate });
    expect(await cached.translate(input('t1'))).toBe('about t1');
    expect(await cached.translate(input('t1'))).toBe('about t1');
    expect(await cached.translate(input('t2'))).toBe('about t2');
    expect(translate).toHaveBeenCalledTimes(2);
  });

  it('shares one pending translation between concurrent calls', async () => {
    const translate = vi.fn(() => Promise.resolve('prose'));
    const cached = cacheTranslationsByTurn({ translate });
    await Promise.all([cached.translate(input('t1')), cached.translate(input('t1'))]);
    expect(translate).toHaveBeenCalledTimes(1);
  });

  it('does not keep a failed translation', async () => {
    let calls = 0;
    const translator: LlmContextTranslator = {
      translate: () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('model down')) : Promise.resolve('prose');
      },
    };
    const cached = cacheTranslationsByTurn(translator);
    await expect(cached.translate(input('t1'))).rejects.toThrow('model down');
    expect(await cached.translate(input('t1'))).toBe('prose');
    expect(calls).toBe(2);
  });

  it('forgets the oldest turn beyond maxTurns', async () => {
    const translate = vi.fn((request: LlmContextInput) => Promise.resolve(request.turnId));
    const cached = cacheTranslationsByTurn({ translate }, { maxTurns: 2 });
    await cached.translate(input('t1'));
    await cached.translate(input('t2'));
    await cached.translate(input('t3'));
    await cached.translate(input('t3'));
    await cached.translate(input('t1'));
    expect(translate.mock.calls.map(([request]) => request.turnId)).toEqual(['t1', 't2', 't3', 't1']);
  });
});
