/**
 * The `llm-context` part: analytical prose for a peer's LLM about the turn's answer and data, made by
 * a translator (typically a small, fast model) from the actor's conversational response. It is made
 * only when an originator asks for it through the Beach extension of its Agent Card.
 */

import type { AgentCard } from '@a2a-js/sdk';
import { beachEnvelopeConsumes } from '../agent-card/beach-extension.ts';
import type { CardWithExtensions } from '../agent-card/beach-extension.ts';
import type { JsonObject } from '../parts/part.ts';

/** The part type of the translated part. */
export const LLM_CONTEXT_PART_TYPE = 'llm-context';

/** What the translator is given. */
export interface LlmContextInput {
  /** The actor's `response` texts of the turn, joined by a blank line. May be empty. */
  readonly responseText: string;
  /** The collected `domain-data` object, when the turn has data. */
  readonly domainData: JsonObject | undefined;
  readonly sessionId: string;
  readonly turnId: string;
}

/** Writes the `llm-context` prose. Passed in by the caller (it usually wraps a model client). */
export interface LlmContextTranslator {
  /** Resolves to the prose; rejects when the translation failed. */
  translate(input: LlmContextInput): Promise<string>;
}

/**
 * Whether any originator's Agent Card carries the Beach extension with `llm-context` in
 * `envelopeConsumes`. Cards without the extension (non-Beach peers) never ask for it.
 */
export function originatorsWantLlmContext(originators: readonly (AgentCard | CardWithExtensions)[]): boolean {
  return originators.some((card) => beachEnvelopeConsumes(card).includes(LLM_CONTEXT_PART_TYPE));
}

/** Options of {@link cacheTranslationsByTurn}. */
export interface TranslationCacheOptions {
  /** How many turns' translations are kept; the oldest is forgotten first. Default 100. */
  readonly maxTurns?: number;
}

/**
 * Wraps a translator so each turn is translated at most once: a second call with the same `turnId`
 * (e.g. the same turn's envelope built again for another transport) gets the first call's result.
 * A failed translation is not kept, so a later call may try again.
 */
export function cacheTranslationsByTurn(
  translator: LlmContextTranslator,
  options: TranslationCacheOptions = {},
): LlmContextTranslator {
  const maxTurns = options.maxTurns ?? 100;
  const cache = new Map<string, Promise<string>>();
  return {
    translate(input: LlmContextInput): Promise<string> {
      const cached = cache.get(input.turnId);
      if (cached !== undefined) return cached;
      const pending = translator.translate(input);
      cache.set(input.turnId, pending);
      void pending.catch(() => {
        if (cache.get(input.turnId) === pending) cache.delete(input.turnId);
      });
      while (cache.size > maxTurns) {
        const oldest = cache.keys().next();
        if (oldest.done === true) break;
        cache.delete(oldest.value);
      }
      return pending;
    },
  };
}
