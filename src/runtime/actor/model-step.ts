import { SwitchboardError } from '../../protocol/errors.ts';
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import { validateRespondCall, type RespondValidation } from '../../protocol/respond/validate-respond-call.ts';
import type { ModelOutputBlock, ModelRequest, ModelResponse } from '../model/model-types.ts';
import { maskModelOutput, maskModelRequest, type PersonalDataOf } from '../inspect/mask-model-call.ts';
import { modelRequestData, modelResponseData } from '../inspect/model-call-entries.ts';
import type { EmittedPart } from '../session/turn-record.ts';
import { deadlineSignal } from './deadline-signal.ts';
import { lockLost, type LiveTurn } from './live-turn.ts';
import { buildModelRequest } from './model-request.ts';
import { respondContext } from './process-response.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import type { TurnScope } from './turn-end.ts';
import { DEADLINE_TEXT } from './turn-limits.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

/** What the person is told when the model call fails without a message of its own. */
const MODEL_FAILED_TEXT = 'Sorry, the assistant is unavailable right now. Please try again in a moment.';

/** One model call's response, with what was already done with it while it streamed. */
export interface ModelStep {
  /** The turn's step number this call was (its `step` before the call). */
  readonly step: number;
  /** The model's whole response. */
  readonly response: ModelResponse;
  /** Part ids already delivered while the response streamed. */
  readonly early: ReadonlySet<string>;
  /** respond() calls already checked while the response streamed, by block index. */
  readonly validated: ReadonlyMap<number, RespondValidation>;
  /** Estimated cost of the call in USD; absent for a model without a price. */
  readonly costUsd?: number;
}

/**
 * Makes the turn's next model call, logging the request and the response. respond() parts are
 * delivered as their blocks stream in. The call is cut at the turn's deadline (`now()`, ms since
 * the epoch, against `deadlineAt`; at least 1 ms). A lost lock throws; a deadline or model failure
 * fails the turn and returns `undefined`.
 */
export async function callModel(scope: TurnScope, actor: ResolvedActor, signal: AbortSignal): Promise<ModelStep | undefined> {
  const { deps, turn, now } = scope;
  const step = turn.record.step;
  const request = await logRequest(deps, turn, actor, step);
  const early = earlyDelivery(deps, turn, step);
  // A model call that hangs is cut at the turn's deadline, not left to the SDK's own timeout.
  const deadline = deadlineSignal(Date.parse(turn.record.deadlineAt) - now());
  const started = now();
  let response: ModelResponse;
  try {
    response = await deps.model.create(request, { signal: AbortSignal.any([signal, deadline.signal]), onBlock: early.onBlock });
  } catch (error) {
    const latencyMs = now() - started;
    await Promise.allSettled(early.deliveries);
    await capture(deps, turn, step, request, { error });
    await failedCall(scope, { step, error, signal, deadline: deadline.signal, latencyMs });
    return undefined;
  } finally {
    deadline.clear();
  }
  const latencyMs = now() - started;
  await Promise.all(early.deliveries);
  const costUsd = deps.inspect?.costUsd(response.model, response.usage);
  await capture(deps, turn, step, request, { response });
  await logResponse(deps, turn, response, { step, latencyMs, costUsd });
  return { step, response, early: early.partIds, validated: early.validated, ...(costUsd === undefined ? {} : { costUsd }) };
}

/** Whether `response` calls a tool besides `respond`: one whose handler may act outside the turn. */
export function callsTools(response: ModelResponse): boolean {
  return response.content.some((block) => block.type === 'tool_use' && block.name !== RESPOND_TOOL_NAME);
}

/** The personal-data paths of the registry's tools. */
function personalDataOf(deps: TurnRunnerDeps): PersonalDataOf {
  return (toolName) => deps.registry.get(toolName)?.personalData ?? [];
}

/** Saves the whole call (personal data masked) when capture is on. */
async function capture(deps: TurnRunnerDeps, turn: LiveTurn, step: number, request: ModelRequest, outcome: { readonly response: ModelResponse } | { readonly error: unknown }): Promise<void> {
  const store = deps.inspect?.capture;
  if (store === undefined) return;
  const masked = personalDataOf(deps);
  await store.save(turn.record.sessionId, turn.record.turnId, step, {
    request: maskModelRequest(request, masked),
    ...('response' in outcome
      ? { response: { ...outcome.response, content: maskModelOutput(outcome.response.content, masked) } }
      : { response: null, error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) }),
  });
}

/** Builds the model request for the turn as it stands and logs `model_request`. */
async function logRequest(deps: TurnRunnerDeps, turn: LiveTurn, actor: ResolvedActor, step: number): Promise<ModelRequest> {
  const { record } = turn;
  const request = buildModelRequest({
    actor: actor.config,
    tools: actor.modelTools,
    respondTool: deps.respondTool,
    terminalTools: actor.terminalTools,
    history: turn.history,
    turn: record.messages,
  });
  await deps.log.append(record.sessionId, {
    type: 'model_request',
    turnId: record.turnId,
    actor: record.actor,
    data: modelRequestData(step, request, deps.inspect?.capture !== undefined),
  });
  return request;
}

/** Logs `model_response` for a response that arrived: with its blocks (masked) while capture is on. */
async function logResponse(deps: TurnRunnerDeps, turn: LiveTurn, response: ModelResponse, facts: { readonly step: number; readonly latencyMs: number; readonly costUsd: number | undefined }): Promise<void> {
  const { record } = turn;
  const content = deps.inspect?.capture === undefined ? undefined : maskModelOutput(response.content, personalDataOf(deps));
  await deps.log.append(record.sessionId, {
    type: 'model_response',
    turnId: record.turnId,
    actor: record.actor,
    data: modelResponseData(response, { ...facts, ...(content === undefined ? {} : { content }) }),
  });
}

/** What {@link earlyDelivery} did while a response streamed. */
interface EarlyDelivery {
  /** The model client's `onBlock` callback. */
  readonly onBlock: (block: ModelOutputBlock, index: number) => void;
  /** Part ids handed to the output so far. */
  readonly partIds: Set<string>;
  /** The deliveries started, to await before the response is processed. */
  readonly deliveries: Promise<void>[];
  /** respond() calls checked while the response streamed; processing reuses them. */
  readonly validated: Map<number, RespondValidation>;
}

/** Delivers the parts of each valid, non-suspending respond() call as soon as its block arrives. */
function earlyDelivery(deps: TurnRunnerDeps, turn: LiveTurn, step: number): EarlyDelivery {
  const partIds = new Set<string>();
  const deliveries: Promise<void>[] = [];
  const validated = new Map<number, RespondValidation>();
  const onBlock = (block: ModelOutputBlock, index: number): void => {
    if (block.type !== 'tool_use' || block.name !== RESPOND_TOOL_NAME) return;
    const checked = validateRespondCall(block.input, respondContext(deps));
    validated.set(index, checked);
    if (!checked.ok || checked.call.turnState === 'suspended') return;
    checked.call.parts.forEach((part, partIndex) => {
      const emitted: EmittedPart = { partId: `${turn.record.turnId}.${step}.${index}.${partIndex}`, part, turnState: checked.call.turnState, actor: turn.record.actor };
      partIds.add(emitted.partId);
      deliveries.push(deps.output.part(turn.record, emitted));
    });
  };
  return { onBlock, partIds, deliveries, validated };
}

/** Whether the signal fired (read through a call, so narrowing does not keep a stale value). */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/**
 * A model call that threw: rethrows a lost lock, fails the turn at its deadline, otherwise logs
 * the error and fails the turn with the error's `userMessage` detail (or a generic apology).
 */
async function failedCall(
  { deps, turn, end }: TurnScope,
  failure: { readonly step: number; readonly error: unknown; readonly signal: AbortSignal; readonly deadline: AbortSignal; readonly latencyMs: number },
): Promise<void> {
  const { step, error, signal, deadline, latencyMs } = failure;
  const { sessionId, turnId, actor } = turn.record;
  if (aborted(signal)) throw lockLost(sessionId, error);
  if (aborted(deadline)) return end.fail('deadline', DEADLINE_TEXT);
  const coded = error instanceof SwitchboardError ? error : undefined;
  await deps.log.append(sessionId, { type: 'model_response', turnId, actor, data: { step, error: coded?.message ?? String(error), latencyMs } });
  const userMessage = coded?.details['userMessage'];
  await end.fail('model_failed', typeof userMessage === 'string' ? userMessage : MODEL_FAILED_TEXT);
}
