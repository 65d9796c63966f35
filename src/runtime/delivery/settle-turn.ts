import { isDeepStrictEqual } from 'node:util';
import { filterForTransport } from '../../protocol/envelope/delivery-filter.ts';
import { buildEnvelope } from '../../protocol/envelope/envelope-builder.ts';
import type { LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import type { SurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import type { DeliveryClass } from '../../protocol/parts/part.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { Settlement } from './turn-delivery.ts';

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
  readonly translator?: LlmContextTranslator;
  /** Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/**
 * Builds what a settled turn delivers on one transport: for a state that emits an envelope, the
 * envelope (conversational parts, one domain-data part, surfaces) filtered by the delivery rules;
 * nothing otherwise (clarify and error parts were flushed when emitted). Parts the actor emitted
 * keep their ids, so a streaming channel that already has them does not get them twice; on a
 * buffered channel, parts it was sent at once (`flush`) are left out.
 */
export function createSettlement(options: SettlementOptions) {
  const clock = options.clock ?? (() => new Date());
  return async (turn: TurnRecord, turnState: string, transport: { id: string; deliveryClass: DeliveryClass }): Promise<Settlement> => {
    if (options.turnStates.get(turnState)?.emitsEnvelope !== 'full') return { parts: [] };
    const { envelope } = await buildEnvelope({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      finalizedBy: turnState,
      parts: turn.emitted.map(({ part }) => part),
      dataEvents: turn.dataEvents,
      surfaces: options.surfaces,
      clock,
      partTypes: options.partTypes,
      ...(options.translator === undefined ? {} : { translator: options.translator }),
    });
    const kept = filterForTransport(envelope.parts, transport, options.partTypes).parts;
    const parts = kept.flatMap((part, index) => {
      const original = turn.emitted.find((emitted) => isDeepStrictEqual(emitted.part, part));
      // A part the actor emitted whose rule sends it at once already went out when it was emitted.
      if (original !== undefined && sentAtOnce(options.partTypes, part.metadata.partType, transport.deliveryClass)) return [];
      return [{ partId: original?.partId ?? `${turn.turnId}.env.${index}`, part }];
    });
    return { parts, envelope: envelope as unknown as Readonly<Record<string, unknown>> };
  };
}
