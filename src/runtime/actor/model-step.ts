import { SwitchboardError } from '../../protocol/errors.ts';
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import { validateRespondCall, type RespondValidation } from '../../protocol/respond/validate-respond-call.ts';
import type { ModelOutputBlock, ModelRequest, ModelResponse } from '../model/model-types.ts';
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
  let response: ModelResponse;
  try {
    response = await deps.model.create(request, { signal: AbortSignal.any([signal, deadline.signal]), onBlock: early.onBlock });
  } catch (error) {
    await Promise.allSettled(early.deliveries);
    await failedCall(scope, { step, error, signal, deadline: deadline.signal });
    return undefined;
  } finally {
    deadline.clear();
  }
  await Promise.all(early.deliveries);
  await logResponse(deps, turn, step, response);
  return { step, response, early: early.partIds, validated: early.validated };
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
    data: { step, model: request.model, messages: request.messages.length, tools: request.tools.map((tool) => tool.name) },
  });
  return request;
}

/** Logs `model_response` for a response that arrived. */
async function logResponse(deps: TurnRunnerDeps, turn: LiveTurn, step: number, response: ModelResponse): Promise<void> {
  const { record } = turn;
  await deps.log.append(record.sessionId, {
    type: 'model_response',
    turnId: record.turnId,
    actor: record.actor,
    data: { step, id: response.id, stopReason: response.stopReason, usage: response.usage, blocks: response.content.map((block) => block.type === 'text' ? 'text' : block.name) },
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
  failure: { readonly step: number; readonly error: unknown; readonly signal: AbortSignal; readonly deadline: AbortSignal },
): Promise<void> {
  const { step, error, signal, deadline } = failure;
  const { sessionId, turnId, actor } = turn.record;
  if (aborted(signal)) throw lockLost(sessionId, error);
  if (aborted(deadline)) return end.fail('deadline', DEADLINE_TEXT);
  const coded = error instanceof SwitchboardError ? error : undefined;
  await deps.log.append(sessionId, { type: 'model_response', turnId, actor, data: { step, error: coded?.message ?? String(error) } });
  const userMessage = coded?.details['userMessage'];
  await end.fail('model_failed', typeof userMessage === 'string' ? userMessage : MODEL_FAILED_TEXT);
}
