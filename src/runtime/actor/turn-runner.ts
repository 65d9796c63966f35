import { scheduledActorOf } from '../proactive/scheduled-injection.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SwitchboardError } from '../../protocol/errors.ts';
import { RESPOND_TOOL_NAME } from '../../protocol/respond/respond-schema.ts';
import { validateRespondCall, type RespondValidation } from '../../protocol/respond/validate-respond-call.ts';
import type { Injection } from '../injection.ts';
import type { ModelInputBlock, ModelMessage, ModelOutputBlock, ModelResponse } from '../model/model-types.ts';
import type { TurnInProgress } from '../session/session-store.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';
import { approvalsReady, requestApprovals, requesterOf, resolveApprovals } from './approval-gate.ts';
import { buildModelRequest, trimHistory } from './model-request.ts';
import { processResponse, respondContext } from './process-response.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

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
  const entry = scheduledActorOf(first) ?? deps.channelRoute?.(first.channel)?.actor ?? deps.entryActor;
  const actor = deps.actors.get(entry);
  const deadlineMs = actor?.config.limits.turnDeadlineMs ?? 120_000;
  return {
    turnId: `turn_${randomUUID().replaceAll('-', '')}`,
    sessionId,
    actor: entry,
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

const DEADLINE_TEXT = 'Sorry, this took longer than allowed, so I stopped. Please try again.';

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
    if (!(await approvalsReady(gate, record.pendingApprovals, now()))) {
      // The suspension is saved before its requests are sent; after a crash in between, send them
      // again (each delivery is idempotent, so a request already shown is not shown twice).
      for (const part of record.emitted.filter((emitted) => emitted.part.metadata.partType === 'approval-request')) {
        await deps.output.part(record, part);
      }
      return 'waiting';
    }
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
      await failTurn('deadline', DEADLINE_TEXT);
      return 'settled';
    }
    if (record.step >= limits.maxModelCalls) {
      await failTurn('max_model_calls', 'Sorry, I could not finish this within my step limit. Please try again or simplify the request.');
      return 'settled';
    }

    const midTurn = deps.channelRoute?.(record.replyTo.channel)?.midTurn ?? actor.config.midTurn;
    if (midTurn === 'steer' || record.given === 0) {
      if (midTurn === 'steer') inbox = await deps.store.steer(sessionId);
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
    // respond() calls checked while the response streamed; processing reuses them.
    const validated = new Map<number, RespondValidation>();
    const deliverEarly = (block: ModelOutputBlock, index: number): void => {
      if (block.type !== 'tool_use' || block.name !== RESPOND_TOOL_NAME) return;
      const checked = validateRespondCall(block.input, respondContext(deps));
      validated.set(index, checked);
      if (!checked.ok || checked.call.turnState === 'suspended') return;
      checked.call.parts.forEach((part, partIndex) => {
        const emitted: EmittedPart = { partId: `${turnId}.${step}.${index}.${partIndex}`, part, turnState: checked.call.turnState, actor: record.actor };
        early.add(emitted.partId);
        earlyDeliveries.push(deps.output.part(record, emitted));
      });
    };

    let response: ModelResponse;
    // A model call that hangs is cut at the turn's deadline, not left to the SDK's own timeout.
    const deadline = AbortSignal.timeout(Math.max(1, Date.parse(record.deadlineAt) - now()));
    try {
      response = await deps.model.create(request, { signal: AbortSignal.any([signal, deadline]), onBlock: deliverEarly });
    } catch (error) {
      await Promise.allSettled(earlyDeliveries);
      if (aborted(signal)) throw new SwitchboardError('session.lock_lost', `Lost the lock of session ${sessionId}.`, { cause: error });
      if (aborted(deadline)) {
        await failTurn('deadline', DEADLINE_TEXT);
        return 'settled';
      }
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

    const { results, emitted, dataEvents, violations, settle, waitState, terminal, awaitingApproval } = await processResponse(
      { deps, record, actor, step, inbox, early, validated, now },
      response,
    );
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
      const until = new Date(now() + waitMs);
      record = { ...record, status: 'waiting', wait: { turnState: waitState, until: until.toISOString() } };
      await deps.store.saveTurn(record);
      await deps.scheduleWake?.(sessionId, `wake-${turnId}-${String(step)}`, until);
      return 'waiting';
    }
    if (record.corrective > limits.maxCorrectiveRetries) {
      await failTurn('protocol_violations', 'Sorry, the assistant could not produce a valid answer. Please try again.');
      return 'settled';
    }
    await deps.store.saveTurn(record);
  }
}
