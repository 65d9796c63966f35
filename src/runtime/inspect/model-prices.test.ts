import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL } from '../../config/models.ts';
import type { ModelUsage } from '../model/model-types.ts';
import { createPriceList, MODEL_PRICES, toMicros } from './model-prices.ts';

const usage = (inputTokens: number, outputTokens: number, cacheReadInputTokens = 0, cacheCreationInputTokens = 0): ModelUsage => ({ inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens });

describe('model prices', () => {
  it("prices the repository's default models", () => {
    expect(MODEL_PRICES[DEFAULT_ACTOR_MODEL]).toBeDefined();
    expect(MODEL_PRICES[DEFAULT_TRANSLATOR_MODEL]).toBeDefined();
  });

  it('costs every kind of token at its own price', () => {
    const prices = createPriceList();
    // Sonnet 5.5: $2 input, $10 output, $0.10 cache reads, $2.50 cache writes per million.
    expect(prices.costUsd('claude-sonnet-5-5', usage(1_000_000, 0))).toBeCloseTo(2, 9);
    expect(prices.costUsd('claude-sonnet-5-5', usage(1000, 200, 10_000, 2000))).toBeCloseTo(0.002 + 0.002 + 0.001 + 0.005, 9);
  });

  it("uses Haiku 5.5's long-prompt band for prompts over 100 000 tokens, output included", () => {
    const prices = createPriceList();
    expect(prices.costUsd('claude-haiku-5-5', usage(100_000, 1_000_000))).toBeCloseTo(0.01 + 0.5, 9);
    expect(prices.costUsd('claude-haiku-5-5', usage(60_000, 1_000_000, 50_000))).toBeCloseTo(0.03 + 2.5 + 0.0025, 9);
  });

  it('finds dated and context-tagged names, and knows nothing of other models', () => {
    const prices = createPriceList();
    expect(prices.priceOf('claude-haiku-4-5-20251001')).toEqual(MODEL_PRICES['claude-haiku-4-5']);
    expect(prices.priceOf('claude-sonnet-5-5[1m]')).toEqual(MODEL_PRICES['claude-sonnet-5-5']);
    expect(prices.costUsd('someone-elses-model', usage(10, 10))).toBeUndefined();
  });

  it('lets switchboard.yaml replace or add a price, filling cache prices from the input price', () => {
    const prices = createPriceList({ 'claude-sonnet-5-5': { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, 'local-model': { input: 4, output: 8 } });
    expect(prices.costUsd('claude-sonnet-5-5', usage(1_000_000, 1_000_000, 1_000_000))).toBeCloseTo(3, 9);
    expect(prices.priceOf('local-model')).toEqual({ input: 4, output: 8, cacheRead: 0.4, cacheWrite: 5 });
  });

  it('counts micro-dollars as whole numbers', () => {
    expect(toMicros(0.0123456)).toBe(12_346);
    expect(toMicros(0)).toBe(0);
  });
});
