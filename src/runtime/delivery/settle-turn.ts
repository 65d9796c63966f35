import { isDeepStrictEqual } from 'node:util';
import { beachExtension } from '../../protocol/agent-card/beach-extension.ts';
import type { CardWithExtensions } from '../../protocol/agent-card/beach-extension.ts';
import { filterForTransport } from '../../protocol/envelope/delivery-filter.ts';
import type { Transport } from '../../protocol/envelope/delivery-filter.ts';
import { buildEnvelope } from '../../protocol/envelope/envelope-builder.ts';
import type { LlmContextOutcome } from '../../protocol/envelope/envelope-builder.ts';
import type { LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import type { SurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import type { DeliveryClass } from '../../protocol/parts/part.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { LlmContextReport, Settlement } from './turn-delivery.ts';

function sentAtOnce(partTypes: PartTypeRegistry, partType: string, deliveryClass: DeliveryClass): boolean {
  const rules = partTypes.get(partType)?.deliveryRules;
  if (rules === undefined) return false;
  return deliveryClass === 'buffered' ? rules.buffered === 'flush' : rules.streaming === 'flush' || rules.streaming === 'stream';
}

/** What {@link createSettlement} needs. */
export interface SettlementOptions {
  readonly partTypes: PartTypeRegistry;
  readonly turnStates: TurnStateRegistry;
  readonly surfaces: SurfaceTemplateRegistry;
  /**
   * Writes `llm-context` for a peer destination that consumes it; never called for a destination
   * that is not a peer (web, email, SMS, Slack, WhatsApp). Wrap it in `cacheTranslationsByTurn` so
   * a turn is translated once. Default none (a peer that asks gets no `llm-context`, logged as
   * `no-translator`).
   */
  readonly translator?: LlmContextTranslator;
  /** Default `() => new Date()`. Also times the translation. */
  readonly clock?: () => Date;
}

/** The card of a peer as far as the envelope builder needs it: its Beach `envelopeConsumes`. */
function peerCard(envelopeConsumes: readonly string[]): CardWithExtensions {
  return { capabilities: { extensions: [beachExtension(envelopeConsumes)] } };
}

/** A translator that records how long its last call took, in ms. */
function timed(translator: LlmContextTranslator, clock: () => Date): { translator: LlmContextTranslator; durationMs: () => number } {
  let durationMs = 0;
  return {
    translator: {
      async translate(input) {
        const start = clock().getTime();
        try {
          return await translator.translate(input);
        } finally {
          durationMs = clock().getTime() - start;
        }
      },
    },
    durationMs: () => durationMs,
  };
}

function report(outcome: LlmContextOutcome, durationMs: number): LlmContextReport | undefined {
  switch (outcome.status) {
    case 'not-requested':
      return undefined;
    case 'translated':
      return { status: 'translated', durationMs };
    case 'failed':
      return { status: 'failed', code: outcome.error.code, message: outcome.error.message, durationMs };
    default:
      return { status: outcome.status };
  }
}

/**
 * Builds what a settled turn delivers on one transport: for a state that emits an envelope, the
 * envelope (conversational parts, one domain-data part, surfaces) filtered by the delivery rules;
 * nothing otherwise (clarify and error parts were flushed when emitted). Parts the actor emitted
 * keep their ids, so a streaming channel that already has them does not get them twice; on a
 * buffered channel, parts it was sent at once (`flush`) are left out.
 *
 * When the transport is a peer (`transport.peer`), the peer is the envelope's originator: parts
 * with `requiresPeerConsumes` go only when it lists them, and `llm-context` is made (by
 * `translator`) only when it lists `llm-context`. A failed translation does not fail the turn: the
 * envelope goes without `llm-context` and {@link Settlement.llmContext} says why.
 */
export function createSettlement(options: SettlementOptions) {
  const clock = options.clock ?? (() => new Date());
  return async (turn: TurnRecord, turnState: string, transport: Transport): Promise<Settlement> => {
    if (options.turnStates.get(turnState)?.emitsEnvelope !== 'full') return { parts: [] };
    const timing = options.translator === undefined ? undefined : timed(options.translator, clock);
    const { envelope, llmContext } = await buildEnvelope({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      finalizedBy: turnState,
      parts: turn.emitted.map(({ part }) => part),
      dataEvents: turn.dataEvents,
      surfaces: options.surfaces,
      clock,
      partTypes: options.partTypes,
      // Only a peer is an originator: web, email, SMS, Slack and WhatsApp never cause a translation.
      ...(transport.peer === undefined ? {} : { originators: [peerCard(transport.peer.envelopeConsumes)] }),
      ...(timing === undefined ? {} : { translator: timing.translator }),
    });
    const kept = filterForTransport(envelope.parts, transport, options.partTypes).parts;
    const parts = kept.flatMap((part, index) => {
      const original = turn.emitted.find((emitted) => isDeepStrictEqual(emitted.part, part));
      // A part the actor emitted whose rule sends it at once already went out when it was emitted.
      if (original !== undefined && sentAtOnce(options.partTypes, part.metadata.partType, transport.deliveryClass)) return [];
      return [{ partId: original?.partId ?? `${turn.turnId}.env.${index}`, part }];
    });
    const outcome = report(llmContext, timing?.durationMs() ?? 0);
    return {
      parts,
      envelope: envelope as unknown as Readonly<Record<string, unknown>>,
      ...(outcome === undefined ? {} : { llmContext: outcome }),
    };
  };
}
