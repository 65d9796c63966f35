import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SwitchboardError } from '../../protocol/errors.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import { parseRespondCall } from '../../protocol/respond/parse-respond-call.ts';
import type { RespondCall } from '../../protocol/respond/respond-call.ts';
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import { respondErrorToolResult, validateRespondCall } from '../../protocol/respond/validate-respond-call.ts';
import { createToolHandlerContext } from '../../protocol/tools/tool-handler-context.ts';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { TurnStateRegistry } from '../../protocol/turn-states/turn-state-registry.ts';
import type { Injection } from '../injection.ts';
import type { ModelClient, ModelInputBlock, ModelMessage, ModelOutputBlock, ModelResponse, ModelTool } from '../model/model-types.ts';
import type { ToolRouter } from '../router/tool-router.ts';
import type { EventLog } from '../session/event-log.ts';
import type { SessionStore, TurnInProgress } from '../session/session-store.ts';
import type { EmittedPart, TurnDataEvent, TurnRecord } from '../session/turn-record.ts';
import { buildModelRequest, trimHistory } from './model-request.ts';
import type { ResolvedActor } from './resolved-actor.ts';
import { approvalsReady, requestApprovals, requesterOf, resolveApprovals, type ApprovalGate } from './approval-gate.ts';
import { runToolCall } from './tool-call.ts';
import type { TurnOutput } from './turn-output.ts';

/** Everything a turn needs; all passed in. */
export interface TurnRunnerDeps {
  readonly model: ModelClient;
  readonly actors: ReadonlyMap<string, ResolvedActor>;
  /** The actor that takes a session's first turn, and every turn after one that did not pass. */
  readonly entryActor: string;
  readonly registry: ToolRegistry;
  readonly partTypes: PartTypeRegistry;
  readonly turnStates: TurnStateRegistry;
  /** The respond() tool in the model's shape, built once from the registries. */
  readonly respondTool: ModelTool;
  readonly store: SessionStore;
  readonly log: EventLog;
  readonly output: TurnOutput;
  readonly router: ToolRouter;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Asks people to approve tool calls that need it. Unset: such calls are refused. */
  readonly approvals?: ApprovalGate;
  /** Names this process in the event log (which worker ran or resumed a turn). Default `<host>:<pid>`. */
  readonly workerId?: string;
  /** Wait limit of a `delegated` turn, in ms. Default 10 minutes. */
  readonly delegationTimeoutMs?: number;
}

const FREE_TEXT_NOTE =
  'Protocol violation: text written outside a tool call is never shown to anyone and was discarded. ' +
  'Put everything you want to say into a respond call.';
const NO_TOOL_NOTE = 'Protocol violation: you must call a tool. Use respond to say anything to the person.';

/**
 * Runs every turn a session has waiting, one after another: resumes a turn a crashed worker left
 * behind, otherwise starts one from the oldest waiting injection. Returns when the mailbox is
 * empty or the running turn waits (for an approval or a peer).
 */
export async function runSessionTurns(deps: TurnRunnerDeps, sessionId: string, signal: AbortSignal): Promise<void> {
  const now = deps.now ?? Date.now;
  for (;;) {
    if (signal.aborted) throw new SwitchboardError('session.lock_lost', `Lost the lock of session ${sessionId}.`);
    const progress = await deps.store.beginTurn(sessionId, (first) => newTurnRecord(deps, sessionId, first, now()));
    if (progress === undefined) return;
    if (progress.record.status === 'waiting' && progress.record.pendingApprovals === undefined) {
      const until = progress.record.wait === undefined ? 0 : Date.parse(progress.record.wait.until);
      if (now() < until) return;
    }
    if ((await runTurn(deps, progress, signal)) === 'waiting') return;
  }
}

function newTurnRecord(deps: TurnRunnerDeps, sessionId: string, first: Injection, at: number): TurnRecord {
  const actor = deps.actors.get(deps.entryActor);
  const deadlineMs = actor?.config.limits.turnDeadlineMs ?? 120_000;
  return {
    turnId: `turn_${randomUUID().replaceAll('-', '')}`,
    sessionId,
    actor: deps.entryActor,
    startedAt: new Date(at).toISOString(),
    deadlineAt: new Date(at + deadlineMs).toISOString(),
    step: 0,
    corrective: 0,
    handoffs: 0,
    given: 0,
    messages: [],
    status: 'running',
    emitted: [],
    dataEvents: [],
    replyTo: first.replyTo,
  };
}

function injectionMessage(injections: readonly Injection[]): ModelMessage {
  return {
    role: 'user',
    content: injections.map((injection) => ({
      type: 'text' as const,
      text: injection.kind === 'message' ? injection.text : `[${injection.kind}] ${injection.text} ${JSON.stringify(injection.data ?? {})}`,
    })),
  };
}

function toInputBlocks(blocks: readonly ModelOutputBlock[]): ModelInputBlock[] {
  return blocks.flatMap((block): ModelInputBlock[] => {
    if (block.type === 'text') return block.text.trim() === '' ? [] : [{ type: 'text', text: block.text }];
    return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
  });
}

/** Position of each tool_use id in the turn's last assistant message, for ordering results. */
function toolUseOrder(messages: readonly ModelMessage[]): (block: ModelInputBlock) => number {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  const ids = (last?.content ?? []).flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  return (block) => (block.type === 'tool_result' ? ids.indexOf(block.tool_use_id) : ids.length);
}

/** Whether the signal fired (read through a call, so narrowing does not keep a stale value). */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** Runs one turn to settlement or to a wait, saving its record after every model call. */
async function runTurn(deps: TurnRunnerDeps, progress: TurnInProgress, signal: AbortSignal): Promise<'settled' | 'waiting'> {
  const now = deps.now ?? Date.now;
  let record = progress.record;
  let inbox = progress.inbox;
  const { sessionId, turnId } = record;
  const history = await deps.store.history(sessionId);
  await deps.log.append(sessionId, { type: progress.resumed ? 'turn_resumed' : 'turn_started', turnId, actor: record.actor, data: { step: record.step, worker: deps.workerId ?? `${hostname()}:${process.pid}` } });

  const finish = async (turnState: string): Promise<void> => {
    record = { ...record, status: 'settled', settledAs: turnState };
    await deps.store.saveTurn(record);
    await deps.output.settle(record, turnState);
    const budget = deps.actors.get(record.actor)?.config.limits.historyTokenBudget ?? 60_000;
    await deps.store.finishTurn(record, trimHistory([...history, ...record.messages], budget * 2));
    await deps.log.append(sessionId, { type: 'turn_settled', turnId, actor: record.actor, data: { turnState, steps: record.step } });
  };
  const failTurn = async (reason: string, text: string): Promise<void> => {
    const emitted: EmittedPart = { partId: `${turnId}.rt.${record.step}`, part: { text, metadata: { partType: 'error' } }, turnState: 'error', actor: record.actor };
    record = { ...record, emitted: [...record.emitted, emitted] };
    await deps.log.append(sessionId, { type: 'part', turnId, actor: record.actor, data: { partId: emitted.partId, partType: 'error', reason } });
    await deps.output.part(record, emitted);
    await finish('error');
  };

  if (record.status === 'settled') {
    await finish(record.settledAs ?? 'complete');
    return 'settled';
  }
  if (record.status === 'waiting' && record.pendingApprovals !== undefined && deps.approvals !== undefined) {
    const gate = deps.approvals;
    if (!(await approvalsReady(gate, record.pendingApprovals, now()))) return 'waiting';
    const actor = deps.actors.get(record.actor);
    if (actor === undefined) {
      await failTurn('unknown_actor', 'This conversation was handed to an assistant that does not exist.');
      return 'settled';
    }
    const resolved = await resolveApprovals(gate, { registry: deps.registry, router: deps.router, log: deps.log, now }, actor, record, inbox[0]);
    const order = toolUseOrder(record.messages);
    const content = [...(record.heldResults ?? []), ...resolved.results].sort((a, b) => order(a) - order(b));
    const { wait: _wait, pendingApprovals: _pending, heldResults: _held, ...rest } = record;
    record = {
      ...rest,
      status: 'running',
      messages: [...record.messages, { role: 'user', content }],
      dataEvents: [...record.dataEvents, ...resolved.outcomes.flatMap((outcome) => (outcome.dataEvent === undefined ? [] : [outcome.dataEvent]))],
    };
    await deps.store.saveTurn(record);
    await deps.log.append(sessionId, { type: 'turn_resumed', turnId, actor: record.actor, data: { after: 'approvals', approvals: resolved.results.length } });
  } else if (record.status === 'waiting') {
    await failTurn('wait_expired', 'The request timed out while waiting, so nothing more was done.');
    return 'settled';
  }

  for (;;) {
    if (signal.aborted) throw new SwitchboardError('session.lock_lost', `Lost the lock of session ${sessionId}.`);
    const actor = deps.actors.get(record.actor);
    if (actor === undefined) {
      await failTurn('unknown_actor', 'This conversation was handed to an assistant that does not exist.');
      return 'settled';
    }
    const { limits } = actor.config;
    if (now() > Date.parse(record.deadlineAt)) {
      await failTurn('deadline', 'Sorry, this took longer than allowed, so I stopped. Please try again.');
      return 'settled';
    }
    if (record.step >= limits.maxModelCalls) {
      await failTurn('max_model_calls', 'Sorry, I could not finish this within my step limit. Please try again or simplify the request.');
      return 'settled';
    }

    if (actor.config.midTurn === 'steer' || record.given === 0) {
      if (actor.config.midTurn === 'steer') inbox = await deps.store.steer(sessionId);
      const fresh = inbox.slice(record.given);
      if (fresh.length > 0) {
        record = { ...record, given: inbox.length, messages: [...record.messages, injectionMessage(fresh)] };
        for (const injection of fresh) {
          await deps.log.append(sessionId, { type: 'injection', turnId, actor: record.actor, data: { id: injection.id, kind: injection.kind, channel: injection.channel } });
        }
      }
    }

    const step = record.step;
    const request = buildModelRequest({
      actor: actor.config,
      tools: actor.modelTools,
      respondTool: deps.respondTool,
      terminalTools: actor.terminalTools,
      history,
      turn: record.messages,
    });
    await deps.log.append(sessionId, {
      type: 'model_request',
      turnId,
      actor: record.actor,
      data: { step, model: request.model, messages: request.messages.length, tools: request.tools.map((tool) => tool.name) },
    });

    const early = new Set<string>();
    const earlyDeliveries: Promise<void>[] = [];
    const deliverEarly = (block: ModelOutputBlock, index: number): void => {
      if (block.type !== 'tool_use' || block.name !== RESPOND_TOOL_NAME) return;
      const checked = validateRespondCall(block.input, { partTypes: deps.partTypes, turnStates: deps.turnStates });
      if (!checked.ok || checked.call.turnState === 'suspended') return;
      checked.call.parts.forEach((part, partIndex) => {
        const emitted: EmittedPart = { partId: `${turnId}.${step}.${index}.${partIndex}`, part, turnState: checked.call.turnState, actor: record.actor };
        early.add(emitted.partId);
        earlyDeliveries.push(deps.output.part(record, emitted));
      });
    };

    let response: ModelResponse;
    try {
      response = await deps.model.create(request, { signal, onBlock: deliverEarly });
    } catch (error) {
      await Promise.allSettled(earlyDeliveries);
      if (aborted(signal)) throw new SwitchboardError('session.lock_lost', `Lost the lock of session ${sessionId}.`, { cause: error });
      const coded = error instanceof SwitchboardError ? error : undefined;
      await deps.log.append(sessionId, { type: 'model_response', turnId, actor: record.actor, data: { step, error: coded?.message ?? String(error) } });
      const userMessage = coded?.details['userMessage'];
      await failTurn('model_failed', typeof userMessage === 'string' ? userMessage : 'Sorry, the assistant is unavailable right now. Please try again in a moment.');
      return 'settled';
    }
    await Promise.all(earlyDeliveries);
    await deps.log.append(sessionId, {
      type: 'model_response',
      turnId,
      actor: record.actor,
      data: { step, id: response.id, stopReason: response.stopReason, usage: response.usage, blocks: response.content.map((block) => block.type === 'text' ? 'text' : block.name) },
    });

    const results: ModelInputBlock[] = [];
    const emitted: EmittedPart[] = [];
    const dataEvents: TurnDataEvent[] = [];
    let violations = 0;
    let freeText = false;
    let sawToolUse = false;
    let settle: RespondCall | undefined;
    let waitState: string | undefined;
    let terminal: { output: string; tool: string } | undefined;
    const awaitingApproval: { toolUseId: string; toolName: string; args: Readonly<Record<string, unknown>> }[] = [];

    for (const [index, block] of response.content.entries()) {
      if (block.type === 'text') {
        if (block.text.trim() !== '') {
          freeText = true;
          await deps.log.append(sessionId, { type: 'protocol_violation', turnId, actor: record.actor, data: { kind: 'free_text', text: block.text.slice(0, 500) } });
        }
        continue;
      }
      sawToolUse = true;
      if (block.name === RESPOND_TOOL_NAME) {
        const checked = validateRespondCall(block.input, { partTypes: deps.partTypes, turnStates: deps.turnStates, knownActors: [...deps.actors.keys()] });
        if (!checked.ok) {
          violations += 1;
          await deps.log.append(sessionId, { type: 'protocol_violation', turnId, actor: record.actor, data: { kind: 'invalid_respond', issues: checked.issues } });
          results.push(respondErrorToolResult(block.id, checked.issues));
          continue;
        }
        if (settle !== undefined) {
          results.push({ type: 'tool_result', tool_use_id: block.id, is_error: true, content: 'An earlier respond call in this message already settled the turn; this one was not delivered.' });
          continue;
        }
        if (checked.call.turnState === 'suspended') {
          violations += 1;
          results.push({
            type: 'tool_result',
            tool_use_id: block.id,
            is_error: true,
            content: 'Only the runtime sets turnState "suspended", when a tool needs approval. Nothing was delivered; call the tool itself instead.',
          });
          continue;
        }
        const events = parseRespondCall(checked.call, { sessionId, turnId, actorName: record.actor, toolUseId: block.id });
        for (const event of events) {
          if (event.type !== 'partReceived') continue;
          const part: EmittedPart = { partId: `${turnId}.${step}.${index}.${event.index}`, part: event.part, turnState: event.turnState, actor: record.actor };
          emitted.push(part);
          await deps.log.append(sessionId, { type: 'part', turnId, actor: record.actor, data: { partId: part.partId, partType: event.partType, turnState: event.turnState } });
          if (!early.has(part.partId)) await deps.output.part(record, part);
        }
        await deps.log.append(sessionId, { type: 'turn_state', turnId, actor: record.actor, data: { turnState: checked.call.turnState, passTo: checked.call.passTo, note: checked.call.note } });
        const definition = deps.turnStates.require(checked.call.turnState);
        // A settling state is announced once, by the settlement, after the envelope's parts.
        if (!definition.isTerminal || checked.call.turnState === 'passed') await deps.output.state(record, checked.call.turnState, record.actor);
        results.push({ type: 'tool_result', tool_use_id: block.id, content: 'Delivered.' });
        if (definition.isTerminal) settle = checked.call;
        else if (checked.call.turnState !== 'awaiting') waitState = checked.call.turnState;
        continue;
      }
      if (terminal !== undefined && actor.tools.get(block.name)?.terminal === true) {
        results.push({ type: 'tool_result', tool_use_id: block.id, is_error: true, content: `Only one terminal tool may run per turn; "${block.name}" was not run.` });
        continue;
      }
      const context = createToolHandlerContext({ actorName: record.actor, sessionId, turnId, tenantId: inbox[0]?.tenantId, userId: inbox[0]?.sender.id, personId: inbox[0]?.sender.personId });
      const outcome = await runToolCall({ registry: deps.registry, router: deps.router, log: deps.log, now }, actor.tools, block, context);
      const plan = outcome.approvalRequired === undefined ? undefined : deps.approvals?.plan(block.name);
      if (outcome.approvalRequired !== undefined && plan !== undefined && (plan.approvers.length > 0 || plan.allowRequester)) {
        awaitingApproval.push({ toolUseId: block.id, toolName: block.name, args: outcome.approvalRequired.args });
        continue;
      }
      results.push(
        outcome.approvalRequired === undefined
          ? outcome.result
          : { ...outcome.result, content: `ToolDenied: "${block.name}" needs a person's approval and nobody is configured to approve it. The action was not taken.` },
      );
      if (outcome.dataEvent !== undefined) dataEvents.push(outcome.dataEvent);
      if (outcome.terminalOutput !== undefined) terminal = { output: outcome.terminalOutput, tool: block.name };
    }

    if (freeText || !sawToolUse) {
      violations += 1;
      results.push({ type: 'text', text: sawToolUse ? FREE_TEXT_NOTE : NO_TOOL_NOTE });
    }
    const assistant = toInputBlocks(response.content);
    record = {
      ...record,
      step: step + 1,
      corrective: violations > 0 && settle === undefined ? record.corrective + 1 : record.corrective,
      messages: [
        ...record.messages,
        ...(assistant.length > 0 ? [{ role: 'assistant' as const, content: assistant }] : []),
        ...(results.length > 0 ? [{ role: 'user' as const, content: results }] : []),
      ],
      emitted: [...record.emitted, ...emitted],
      dataEvents: [...record.dataEvents, ...dataEvents],
    };

    if (awaitingApproval.length > 0 && deps.approvals !== undefined) {
      // The calls wait for people; the message's other results are held until they decide.
      const requested = await requestApprovals(deps.approvals, record, awaitingApproval, requesterOf(inbox[0]), step);
      const { messages, ...rest } = record;
      const withoutHeld = messages.at(-1)?.role === 'user' ? messages.slice(0, -1) : messages;
      record = {
        ...rest,
        messages: withoutHeld,
        heldResults: results,
        pendingApprovals: requested.pending,
        status: 'waiting',
        wait: { turnState: 'suspended', until: requested.until, ref: requested.pending.map((call) => call.approvalId).join(',') },
        emitted: [...record.emitted, ...requested.parts],
      };
      await deps.store.saveTurn(record);
      for (const part of requested.parts) {
        await deps.log.append(sessionId, { type: 'part', turnId, actor: record.actor, data: { partId: part.partId, partType: 'approval-request' } });
        await deps.output.part(record, part);
        const approvalId = part.part.data?.['approvalId'];
        if (typeof approvalId === 'string') await deps.approvals.announce?.(approvalId, part);
      }
      await deps.log.append(sessionId, { type: 'turn_state', turnId, actor: record.actor, data: { turnState: 'suspended', approvals: record.wait?.ref } });
      await deps.output.state(record, 'suspended', record.actor);
      return 'waiting';
    }
    if (settle?.turnState === 'passed' && settle.passTo !== undefined) {
      if (record.handoffs >= limits.maxHandoffs) {
        await failTurn('max_handoffs', 'Sorry, this request was handed around too many times, so I stopped.');
        return 'settled';
      }
      record = { ...record, actor: settle.passTo, handoffs: record.handoffs + 1 };
      await deps.store.saveTurn(record);
      continue;
    }
    if (settle !== undefined) {
      await finish(settle.turnState);
      return 'settled';
    }
    if (terminal !== undefined) {
      const part: EmittedPart = { partId: `${turnId}.${step}.terminal`, part: { text: terminal.output, metadata: { partType: 'response', source: terminal.tool } }, turnState: 'complete', actor: record.actor };
      record = { ...record, emitted: [...record.emitted, part] };
      await deps.output.part(record, part);
      await finish('complete');
      return 'settled';
    }
    if (waitState !== undefined) {
      const waitMs = deps.delegationTimeoutMs ?? 600_000;
      record = { ...record, status: 'waiting', wait: { turnState: waitState, until: new Date(now() + waitMs).toISOString() } };
      await deps.store.saveTurn(record);
      return 'waiting';
    }
    if (record.corrective > limits.maxCorrectiveRetries) {
      await failTurn('protocol_violations', 'Sorry, the assistant could not produce a valid answer. Please try again.');
      return 'settled';
    }
    await deps.store.saveTurn(record);
  }
}
