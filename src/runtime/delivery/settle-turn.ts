import { isDeepStrictEqual } from 'node:util';
import { beachExtension } from '../../protocol/agent-card/beach-extension.ts';
import type { CardWithExtensions } from '../../protocol/agent-card/beach-extension.ts';
import { filterForTransport } from '../../protocol/envelope/delivery-filter.ts';
import type { Transport } from '../../protocol/envelope/delivery-filter.ts';
import { DOMAIN_DATA_PART_TYPE } from '../../protocol/envelope/collect-domain-data.ts';
import { buildEnvelope } from '../../protocol/envelope/envelope-builder.ts';
import type { LlmContextOutcome } from '../../protocol/envelope/envelope-builder.ts';
import { A2UI_SURFACE_PART_TYPE } from '../../protocol/envelope/run-surface-template.ts';
import type { DroppedSurface } from '../../protocol/envelope/run-surface-template.ts';
import { LLM_CONTEXT_PART_TYPE } from '../../protocol/envelope/llm-context.ts';
import type { LlmContextTranslator } from '../../protocol/envelope/llm-context.ts';
import type { SurfaceTemplateRegistry } from '../../protocol/envelope/surface-templates.ts';
import type { DeliveryClass, Part } from '../../protocol/parts/part.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { EventLog, EventLogEntry } from '../session/event-log.ts';
import type { TurnRecord } from '../session/turn-record.ts';
import type { LlmContextReport, Settlement } from './turn-delivery.ts';

function sentAtOnce(partTypes: PartTypeRegistry, partType: string, deliveryClass: DeliveryClass): boolean {
  const rules = partTypes.get(partType)?.deliveryRules;
  if (rules === undefined) return false;
  return deliveryClass === 'buffered' ? rules.buffered === 'flush' : rules.streaming === 'flush' || rules.streaming === 'stream';
}

/**
 * What names a part the settlement made (not one the actor emitted), independent of where it sits
 * in the envelope: `domain-data` and `llm-context` (one of each per envelope) by their type, a
 * surface by its surface id. `undefined` when nothing names it.
 */
function madePartName(part: Part): string | undefined {
  const partType = part.metadata.partType;
  if (partType === DOMAIN_DATA_PART_TYPE || partType === LLM_CONTEXT_PART_TYPE) return partType;
  if (partType !== A2UI_SURFACE_PART_TYPE) return undefined;
  const createSurface = part.data?.['createSurface'];
  if (typeof createSurface !== 'object' || createSurface === null) return undefined;
  const surfaceId: unknown = (createSurface as Readonly<Record<string, unknown>>)['surfaceId'];
  return typeof surfaceId === 'string' && surfaceId !== '' ? `surface.${surfaceId}` : undefined;
}

/**
 * The id of a part the settlement made: `<turnId>.env.<name>` (see {@link madePartName}), so the
 * same part gets the same id when the settlement is built again (a retried job whose translation
 * failed once and then worked has one more part, which must not shift the ids of the others, since
 * a delivery's idempotency key is made from it); a name taken already gets `.2`, `.3`…; a part
 * nothing names falls back to its position, `<turnId>.env.<index>`.
 */
function madePartId(turnId: string, part: Part, index: number, taken: Set<string>): string {
  const name = madePartName(part);
  const base = `${turnId}.env.${name ?? String(index)}`;
  let id = base;
  for (let occurrence = 2; taken.has(id); occurrence += 1) id = `${base}.${String(occurrence)}`;
  taken.add(id);
  return id;
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
  /**
   * Where a surface left out of the envelope (its template threw or made an invalid surface) is
   * recorded, as a `surface_dropped` entry of the turn's session. Default: not recorded.
   */
  readonly log?: Pick<EventLog, 'append'>;
}

/** The `surface_dropped` event-log entry of a surface left out of `turnId`'s envelope. */
export function surfaceDroppedEntry(turnId: string, dropped: DroppedSurface): EventLogEntry {
  return { type: 'surface_dropped', turnId, data: { ...dropped } };
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
 * buffered channel, parts it was sent at once (`flush`) are left out. Parts the settlement made
 * are named by what they are (`<turnId>.env.domain-data`, `<turnId>.env.llm-context`,
 * `<turnId>.env.surface.<surfaceId>`), not by position, so a settlement built again names them alike.
 *
 * A surface whose template threw or made an invalid surface is left out (its data stays) and, when
 * {@link SettlementOptions.log} is given, recorded as a `surface_dropped` entry.
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
    const { envelope, llmContext, droppedSurfaces } = await buildEnvelope({
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
    for (const dropped of droppedSurfaces) await options.log?.append(turn.sessionId, surfaceDroppedEntry(turn.turnId, dropped));
    const kept = filterForTransport(envelope.parts, transport, options.partTypes).parts;
    const taken = new Set<string>();
    const parts = kept.flatMap((part, index) => {
      const original = turn.emitted.find((emitted) => isDeepStrictEqual(emitted.part, part));
      // A part the actor emitted whose rule sends it at once already went out when it was emitted.
      if (original !== undefined && sentAtOnce(options.partTypes, part.metadata.partType, transport.deliveryClass)) return [];
      return [{ partId: original?.partId ?? madePartId(turn.turnId, part, index, taken), part }];
    });
    const outcome = report(llmContext, timing?.durationMs() ?? 0);
    return {
      parts,
      envelope: envelope as unknown as Readonly<Record<string, unknown>>,
      ...(outcome === undefined ? {} : { llmContext: outcome }),
    };
  };
}
