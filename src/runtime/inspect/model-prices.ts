/**
 * What model calls cost, in US dollars: a table of list prices per million tokens for the models
 * switchboard uses by default and their neighbours, which `switchboard.yaml` may override or extend
 * (`inspect: { prices: { <model>: { input, output, cacheRead, cacheWrite } } }`).
 *
 * Every figure is an estimate: Anthropic's published list prices as of November 2026, for the
 * Claude API, 5-minute cache writes, no Batch API discount, no regional (`inference_geo`) premium.
 * An invoice is the only exact figure; check https://platform.claude.com/docs/en/about-claude/pricing
 * and override what changed.
 */
import type { ModelUsage } from '../model/model-types.ts';

/** USD per million tokens of each kind of one model. */
export interface TokenPrices {
  /** Input tokens that were neither read from nor written to the prompt cache. */
  readonly input: number;
  readonly output: number;
  /** Input tokens read from the prompt cache (a cache hit). */
  readonly cacheRead: number;
  /** Input tokens written to the prompt cache (5-minute cache). */
  readonly cacheWrite: number;
}

/** A model's prices: one band, or a second band for long prompts. */
export interface ModelPrice extends TokenPrices {
  /**
   * Prices of every token of a call whose prompt (input, cache reads and cache writes together)
   * is longer than `overTokens`; output tokens of such a call too.
   */
  readonly longPrompt?: { readonly overTokens: number; readonly prices: TokenPrices };
}

/** `switchboard.yaml`'s price of one model: `cacheRead` defaults to a tenth of `input`, `cacheWrite` to 1.25 times it. */
export interface PriceOverride {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

const sonnet4: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const opus45: ModelPrice = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };

/**
 * Built-in list prices (USD per million tokens), estimates as of November 2026. `claude-sonnet-5-5`
 * and `claude-haiku-5-5` are the repository's defaults (`src/config/models.ts`). Sonnet 5.5's cache
 * reads are $0.10 since Anthropic halved them on 2026-10-07; Haiku 5.5 costs five times more for
 * prompts over 100 000 tokens.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
  'claude-haiku-5-5': {
    input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125,
    longPrompt: { overTokens: 100_000, prices: { input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625 } },
  },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-opus-5': opus45,
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 },
  'claude-fable-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
  'claude-opus-4-8': opus45,
  'claude-opus-4-7': opus45,
  'claude-opus-4-6': opus45,
  'claude-opus-4-5': opus45,
  'claude-sonnet-4-6': sonnet4,
  'claude-sonnet-4-5': sonnet4,
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
};

/** Prices by model name, the built-in table with the app's overrides on top. */
export interface PriceList {
  /** The price of `model`: exact name first, then without a date (`-20251001`) or `[1m]` suffix; `undefined` when unknown. */
  priceOf(model: string): ModelPrice | undefined;
  /** The estimated cost of one call, in USD; `undefined` for a model without a price. */
  costUsd(model: string, usage: ModelUsage): number | undefined;
}

/** The price an override describes, its cache prices filled in. */
function fromOverride(override: PriceOverride): ModelPrice {
  return {
    input: override.input,
    output: override.output,
    cacheRead: override.cacheRead ?? override.input / 10,
    cacheWrite: override.cacheWrite ?? override.input * 1.25,
  };
}

/** `model` without a trailing date (`-20251001`) or context-window tag (`[1m]`). */
function baseName(model: string): string {
  return model.replace(/\[[^\]]*\]$/, '').replace(/-\d{8}$/, '');
}

/**
 * A {@link PriceList} of {@link MODEL_PRICES} and `overrides` (which win, and replace a built-in
 * model's long-prompt band too).
 *
 * @example
 * createPriceList().costUsd('claude-sonnet-5-5', { inputTokens: 1000, outputTokens: 200, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }) // 0.004
 */
export function createPriceList(overrides: Readonly<Record<string, PriceOverride>> = {}): PriceList {
  const table = new Map<string, ModelPrice>(Object.entries(MODEL_PRICES));
  for (const [model, override] of Object.entries(overrides)) table.set(model, fromOverride(override));
  const priceOf = (model: string): ModelPrice | undefined => table.get(model) ?? table.get(baseName(model));
  return {
    priceOf,
    costUsd(model, usage) {
      const price = priceOf(model);
      if (price === undefined) return undefined;
      const prompt = usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
      const band = price.longPrompt !== undefined && prompt > price.longPrompt.overTokens ? price.longPrompt.prices : price;
      const perMillion = usage.inputTokens * band.input + usage.outputTokens * band.output
        + usage.cacheReadInputTokens * band.cacheRead + usage.cacheCreationInputTokens * band.cacheWrite;
      return perMillion / 1_000_000;
    },
  };
}

/** `usd` in whole micro-dollars (millionths of a dollar), rounded to the nearest. */
export function toMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}
