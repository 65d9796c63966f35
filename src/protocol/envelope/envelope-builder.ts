/**
 * Builds a turn's response envelope from the actor's respond() parts and the mailbox's data-bearing
 * events. See {@link buildEnvelope}.
 */

import type { AgentCard } from '@a2a-js/sdk';
import type { CardWithExtensions } from '../agent-card/beach-extension.ts';
import { SwitchboardError, toSwitchboardError } from '../errors.ts';
import type { JsonObject, MergeStrategy, Part } from '../parts/part.ts';
import type { PartTypeRegistry } from '../parts/part-type-registry.ts';
import type { SurfaceTemplate, SurfaceTemplateContext } from './a2ui.ts';
import { APPROVAL_REQUEST_KIND, approvalSurfaceId } from './approval-surface.ts';
import { DEFAULT_MERGE_STRATEGY, collectDomainData } from './collect-domain-data.ts';
import type { DataBearingEvent, Envelope } from './envelope.ts';
import { LLM_CONTEXT_PART_TYPE, originatorsWantLlmContext } from './llm-context.ts';
import type { LlmContextTranslator } from './llm-context.ts';
import type { StateCoordinates, SetStateRejection, StateMachineRegistry } from './state-machine.ts';
import { createStateMachineRegistry } from './state-machine.ts';
import { runSurfaceTemplate } from './run-surface-template.ts';
import type { DroppedSurface } from './run-surface-template.ts';
import type { SurfaceTemplateRegistry } from './surface-templates.ts';

/** Part type of state patches, applied and stripped by the builder. */
export const SET_STATE_PART_TYPE = 'setState';

const RESPONSE_PART_TYPE = 'response';

/** Options of {@link buildEnvelope}. */
export interface BuildEnvelopeOptions {
  readonly sessionId: string;
  readonly turnId: string;
  /** The turn state that settled the turn, e.g. `complete`; written to `meta.finalizedBy`. */
  readonly finalizedBy: string;
  /** The turn's respond() parts, in the order the actor emitted them. */
  readonly parts: readonly Part[];
  /** The turn's data-bearing events from the mailbox, in order. Default none. */
  readonly dataEvents?: readonly DataBearingEvent[];
  /** Destination slot identity, stamped on the `domain-data` part. Default: not stamped. */
  readonly slotKey?: string;
  /** How data of one kind combines, stamped on the `domain-data` part. Default `replace`. */
  readonly mergeStrategy?: MergeStrategy;
  /**
   * Agent Cards of the turn's originators (peers), or just their `capabilities.extensions` (see
   * `CardWithExtensions`); decide whether `llm-context` is made. Default none.
   */
  readonly originators?: readonly (AgentCard | CardWithExtensions)[];
  /** Surface templates by data kind (use `createSurfaceTemplateRegistry()` for the approval surface). */
  readonly surfaces: SurfaceTemplateRegistry;
  /** Makes `llm-context` when an originator asks for it. Default none (then no `llm-context` is made). */
  readonly translator?: LlmContextTranslator;
  /** The time source for `meta.producedAt`. */
  readonly clock: () => Date;
  /** Part types, for `dataBearing` and to recognise the canonical types. */
  readonly partTypes: PartTypeRegistry;
  /** Component state machines for `setState` parts. Default: an empty registry, which refuses every key. */
  readonly stateMachines?: StateMachineRegistry;
  /** The session state before this turn's `setState` parts. Default `{}`. */
  readonly currentState?: StateCoordinates;
}

/** What happened about `llm-context` in one build, for logs and metrics. */
export type LlmContextOutcome =
  | { readonly status: 'not-requested' }
  | { readonly status: 'actor-provided' }
  | { readonly status: 'translated' }
  | { readonly status: 'no-translator' }
  | { readonly status: 'nothing-to-translate' }
  | { readonly status: 'failed'; readonly error: SwitchboardError };

/** Result of {@link buildEnvelope}. */
export interface BuildEnvelopeResult {
  readonly envelope: Envelope;
  /**
   * Present when the turn had `setState` parts: the new session state, or the original state
   * unchanged when any key was refused.
   */
  readonly state?: StateCoordinates;
  /** Present when the turn's `setState` parts were refused (none of them applied): every refused key. */
  readonly rejectedSetState?: readonly SetStateRejection[];
  readonly llmContext: LlmContextOutcome;
  /**
   * The surfaces left out because their template threw or made an invalid surface, in envelope
   * order; `[]` when none. Their data stays in the `domain-data` part (an approval its
   * `approval-request` part), so a page shows its generic view instead.
   */
  readonly droppedSurfaces: readonly DroppedSurface[];
}

function requireId(name: string, value: string): void {
  if (value.length === 0) {
    throw new SwitchboardError('envelope.invalid', `buildEnvelope needs a non-empty ${name}.`, { details: { [name]: value } });
  }
}

/** Runs a template; its part goes to `parts`, or its failure to `dropped`. */
function addSurface(
  template: SurfaceTemplate,
  data: unknown,
  context: SurfaceTemplateContext,
  out: { readonly parts: Part[]; readonly dropped: DroppedSurface[] },
): void {
  const outcome = runSurfaceTemplate(template, data, context);
  if ('part' in outcome) out.parts.push(outcome.part);
  else out.dropped.push(outcome.dropped);
}

/** Sorts the actor's parts into what the builder treats separately. */
interface SortedParts {
  /** Parts kept in place (conversational and every other non-data part). */
  readonly kept: Part[];
  readonly dataParts: Part[];
  readonly llmContextParts: Part[];
  readonly setStateParts: Part[];
}

function sortParts(parts: readonly Part[], partTypes: PartTypeRegistry): SortedParts {
  const sorted: SortedParts = { kept: [], dataParts: [], llmContextParts: [], setStateParts: [] };
  for (const part of parts) {
    const partType = part.metadata.partType;
    if (partType === SET_STATE_PART_TYPE) sorted.setStateParts.push(part);
    else if (partType === LLM_CONTEXT_PART_TYPE) sorted.llmContextParts.push(part);
    else if (partTypes.get(partType)?.dataBearing === true) sorted.dataParts.push(part);
    else sorted.kept.push(part);
  }
  return sorted;
}

function applyStateParts(
  setStateParts: readonly Part[],
  options: BuildEnvelopeOptions,
): Pick<BuildEnvelopeResult, 'state' | 'rejectedSetState'> {
  if (setStateParts.length === 0) return {};
  const current = options.currentState ?? {};
  const missingData: SetStateRejection[] = setStateParts
    .filter((part) => part.data === undefined)
    .map(() => ({ key: '', reason: 'invalid-value', message: 'A setState part carries no data object.' }));
  const machines = options.stateMachines ?? createStateMachineRegistry();
  const patches = setStateParts.flatMap((part): JsonObject[] => (part.data === undefined ? [] : [part.data]));
  const result = machines.applySetState(current, patches);
  const rejections = [...missingData, ...(result.ok ? [] : result.rejections)];
  if (rejections.length > 0) return { state: current, rejectedSetState: rejections };
  return { state: result.state };
}

async function llmContextParts(
  options: BuildEnvelopeOptions,
  actorParts: readonly Part[],
  kept: readonly Part[],
  domainData: JsonObject | undefined,
): Promise<{ parts: Part[]; outcome: LlmContextOutcome }> {
  if (!originatorsWantLlmContext(options.originators ?? [])) return { parts: [], outcome: { status: 'not-requested' } };
  if (actorParts.length > 0) return { parts: [...actorParts], outcome: { status: 'actor-provided' } };
  if (options.translator === undefined) return { parts: [], outcome: { status: 'no-translator' } };
  const responseText = kept
    .filter((part) => part.metadata.partType === RESPONSE_PART_TYPE && part.text !== undefined && part.text.length > 0)
    .map((part) => part.text)
    .join('\n\n');
  if (responseText.length === 0 && domainData === undefined) {
    return { parts: [], outcome: { status: 'nothing-to-translate' } };
  }
  try {
    const text = await options.translator.translate({
      responseText,
      domainData,
      sessionId: options.sessionId,
      turnId: options.turnId,
    });
    return { parts: [{ text, metadata: { partType: LLM_CONTEXT_PART_TYPE } }], outcome: { status: 'translated' } };
  } catch (thrown) {
    return { parts: [], outcome: { status: 'failed', error: toSwitchboardError(thrown) } };
  }
}

/**
 * Builds the envelope of a settled turn.
 *
 * What happens to the actor's parts:
 * - `setState` parts are applied atomically to `currentState` with `stateMachines` and never appear in
 *   the envelope (see {@link BuildEnvelopeResult.state} and `rejectedSetState`);
 * - `domain-data` parts and parts of other data-bearing types are folded, with `dataEvents`, into one
 *   `domain-data` part (see `collectDomainData`), stamped with `mergeStrategy` and `slotKey`;
 * - `llm-context` parts are kept only when an originator asks for `llm-context`; when it asks and the
 *   actor gave none, `translator` is called once, with the `response` texts and the domain data;
 * - every other part (response, ack, thinking, clarify, error, progress, artifact, citation,
 *   approval-request, actor-made a2ui-surface, consumer types, and unregistered types, which the
 *   delivery filter later drops and reports) is kept in order.
 *
 * Order of `envelope.parts`:
 * 1. the kept parts in the actor's order, each `approval-request` part directly followed by its
 *    approval surface (`a2ui-surface`, surface id `approval-<approvalId>`; omitted when the registry
 *    has no `approval-request` template);
 * 2. the `domain-data` part, when any data was collected;
 * 3. the `llm-context` part(s), when asked for and available;
 * 4. one `a2ui-surface` part per data kind that has a template, in the order of the kinds in the
 *    domain data; surface id = the kind, or `<slotKey>/<kind>` when a slot key is given.
 *
 * A template that throws, or whose surface fails `checkSurfaceMessage` (unknown component, missing
 * binding path, cycle, oversized data model, ...), does not fail the build: its surface is left out
 * and listed in {@link BuildEnvelopeResult.droppedSurfaces}.
 *
 * @throws SwitchboardError `envelope.invalid` for empty ids or a malformed data-bearing event. A
 *   failing translator does not throw either: the envelope goes without `llm-context` and
 *   `llmContext.status` is `failed`.
 */
export async function buildEnvelope(options: BuildEnvelopeOptions): Promise<BuildEnvelopeResult> {
  requireId('sessionId', options.sessionId);
  requireId('turnId', options.turnId);
  requireId('finalizedBy', options.finalizedBy);
  const mergeStrategy = options.mergeStrategy ?? DEFAULT_MERGE_STRATEGY;
  const sorted = sortParts(options.parts, options.partTypes);
  const stateOutcome = applyStateParts(sorted.setStateParts, options);

  const domainPart = collectDomainData({
    events: options.dataEvents ?? [],
    parts: sorted.dataParts,
    mergeStrategy,
    ...(options.slotKey === undefined ? {} : { slotKey: options.slotKey }),
  });
  const baseContext = {
    sessionId: options.sessionId,
    turnId: options.turnId,
    mergeStrategy,
    ...(options.slotKey === undefined ? {} : { slotKey: options.slotKey }),
  };

  const dropped: DroppedSurface[] = [];
  const conversational: Part[] = [];
  const approvalTemplate = options.surfaces.get(APPROVAL_REQUEST_KIND);
  for (const part of sorted.kept) {
    conversational.push(part);
    if (part.metadata.partType !== APPROVAL_REQUEST_KIND || approvalTemplate === undefined) continue;
    const approvalId = part.data?.['approvalId'];
    const surfaceId = approvalSurfaceId(typeof approvalId === 'string' ? approvalId : 'unknown');
    addSurface(approvalTemplate, part.data, { ...baseContext, surfaceId, kind: APPROVAL_REQUEST_KIND }, { parts: conversational, dropped });
  }

  const dataSurfaces: Part[] = [];
  for (const [kind, value] of Object.entries(domainPart?.data ?? {})) {
    const template = options.surfaces.get(kind);
    if (template === undefined) continue;
    const surfaceId = options.slotKey === undefined ? kind : `${options.slotKey}/${kind}`;
    addSurface(template, value, { ...baseContext, surfaceId, kind }, { parts: dataSurfaces, dropped });
  }

  const llm = await llmContextParts(options, sorted.llmContextParts, sorted.kept, domainPart?.data);

  const envelope: Envelope = {
    role: 'agent',
    parts: [...conversational, ...(domainPart === undefined ? [] : [domainPart]), ...llm.parts, ...dataSurfaces],
    meta: {
      sessionId: options.sessionId,
      turnId: options.turnId,
      producedAt: options.clock().toISOString(),
      finalizedBy: options.finalizedBy,
    },
  };
  return { envelope, ...stateOutcome, llmContext: llm.outcome, droppedSurfaces: dropped };
}
