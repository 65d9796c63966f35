import { scheduledActorOf } from '../proactive/scheduled-injection.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Injection } from '../injection.ts';
import type { HeldLock } from '../session/held-lock.ts';
import type { TurnInProgress } from '../session/session-store.ts';
import { freshTurnRecord, type TurnRecord } from '../session/turn-record.ts';
import { applyResponse, suspendForApprovals } from './apply-response.ts';
import { lockLost, type LiveTurn, type TurnExit } from './live-turn.ts';
import { rememberSize } from './model-request.ts';
import { callModel, callsTools } from './model-step.ts';
import { resumeTurn } from './resume-turn.ts';
import { countModelCall, refusedByBudget } from './turn-budget.ts';
import { stopped } from './turn-stop.ts';
import { turnEnd, type TurnScope } from './turn-end.ts';
import { gatherInjections } from './turn-injections.ts';
import { actorForNextStep } from './turn-limits.ts';
import { nextAfterResponse } from './turn-outcome.ts';
import type { TurnRunnerDeps } from './turn-runner-deps.ts';

/**
 * Runs every turn a session has waiting, one after another: resumes a turn a crashed worker left
 * behind, otherwise starts one from the oldest waiting injection. Returns when the mailbox is
 * empty or the running turn waits (for an approval or a peer). With `lock` (the session's lock
 * this process holds), the turn that leaves the mailbox empty lets it go in its last script.
 * With `first` (the answer of a {@link beginTurn} already sent), the first turn starts from it.
 */
export async function runSessionTurns(deps: TurnRunnerDeps, sessionId: string, signal: AbortSignal, lock?: HeldLock, first?: Promise<TurnInProgress | undefined>): Promise<void> {
  try {
    await runUntilDrained(deps, sessionId, signal, lock, first);
  } finally {
    // A buffering log holds the last entries of the turn until here, also when the turn failed.
    await deps.log.flush?.(sessionId);
  }
}

async function runUntilDrained(deps: TurnRunnerDeps, sessionId: string, signal: AbortSignal, lock: HeldLock | undefined, first: Promise<TurnInProgress | undefined> | undefined): Promise<void> {
  const now = deps.now ?? Date.now;
  let begun = first;
  for (;;) {
    if (signal.aborted) throw lockLost(sessionId);
    // A begin sent behind the lock's claim that did nothing is made again: it may have run before
    // the claim (a script Redis had to be sent again), or found the mailbox empty then.
    const progress = (await begun) ?? (await beginTurn(deps, sessionId));
    begun = undefined;
    if (progress === undefined) return;
    if (progress.record.status === 'waiting' && progress.record.pendingApprovals === undefined && !(await deps.stopRequested?.(progress.record))) {
      const until = progress.record.wait === undefined ? 0 : Date.parse(progress.record.wait.until);
      if (now() < until) return;
    }
    const ran = await runTurn(deps, progress, signal, lock);
    // Nothing left in the mailbox when the turn finished: done (what arrives later asks for its own turn).
    if (ran.exit === 'waiting' || ran.turn.waitingAfter === 0) return;
  }
}

/**
 * Begins the session's next turn (see `SessionStore.beginTurn`); with `lock`, only while the
 * session's lock holds its token: the begin an inline turn sends right behind its lock's claim,
 * whose answer {@link runSessionTurns} then takes as `first`.
 */
export function beginTurn(deps: TurnRunnerDeps, sessionId: string, lock?: Pick<HeldLock, 'key' | 'token'>): Promise<TurnInProgress | undefined> {
  const now = deps.now ?? Date.now;
  return deps.store.beginTurn(sessionId, (first) => newTurnRecord(deps, sessionId, first, now()), now(), lock);
}

function newTurnRecord(deps: TurnRunnerDeps, sessionId: string, first: Injection, at: number): TurnRecord {
  const entry = first.actor ?? scheduledActorOf(first) ?? deps.channelRoute?.(first.channel)?.actor ?? deps.entryActor;
  const deadlineMs = deps.actors.get(entry)?.config.limits.turnDeadlineMs ?? 120_000;
  return freshTurnRecord({ turnId: `turn_${randomUUID().replaceAll('-', '')}`, sessionId, actor: entry, at, deadlineMs, replyTo: first.replyTo });
}

/** Runs one turn to settlement or to a wait, saving its record after every model call. */
async function runTurn(deps: TurnRunnerDeps, progress: TurnInProgress, signal: AbortSignal, lock: HeldLock | undefined): Promise<{ exit: TurnExit; turn: LiveTurn }> {
  const turn = await openTurn(deps, progress);
  const exit = await runSteps({ deps, turn, end: turnEnd(deps, turn, lock), now: deps.now ?? Date.now }, signal, progress.saved);
  // A turn that waits (or ended without settling its record) has its budget counts written too.
  await turn.counting;
  return { exit, turn };
}

/**
 * The steps of one turn: resume what a crash left, then model calls until the turn settles or
 * waits. `saved` (a new turn's first write of its record) is done before the turn acts outside, so
 * that a crash after it resumes this turn rather than starting another: a buffering log holds it
 * for the flush it makes before every delivery, and a step whose response calls a tool waits for
 * it before the tool runs. Without a buffering log it is awaited before the first model call.
 */
async function runSteps(scope: TurnScope, signal: AbortSignal, saved?: Promise<void>): Promise<TurnExit> {
  const { deps, turn, now } = scope;
  const resumed = await resumeTurn(scope);
  if (resumed !== undefined) return resumed;
  const held = saved !== undefined && deps.log.hold !== undefined;
  if (held) deps.log.hold?.(turn.record.sessionId, saved);
  for (;;) {
    if (signal.aborted) throw lockLost(turn.record.sessionId);
    if (await stopped(scope)) return 'settled';
    const actor = await actorForNextStep(scope);
    if (actor === undefined) return 'settled';
    await gatherInjections(deps, turn, actor);
    if (!held) await saved;
    if (await refusedByBudget(scope)) return 'settled';
    const call = await callModel(scope, actor, signal);
    if (call === undefined) return 'settled';
    if (callsTools(call.response)) await saved;
    countModelCall(scope, call.response.usage, call.costUsd);
    const outcome = await applyResponse(deps, turn, actor, now, call);
    if (outcome.awaitingApproval.length > 0 && deps.approvals !== undefined) {
      await suspendForApprovals(deps, deps.approvals, turn, call.step, outcome);
      return 'waiting';
    }
    const exit = await nextAfterResponse(scope, actor, outcome, call.step);
    if (exit !== undefined) return exit;
  }
}

/** `host:pid` of this process, read once (it was a system call per turn). */
let processWorkerId: string | undefined;

/** Logs `turn_started` (or `turn_resumed`, found in the store) and makes the live turn. */
async function openTurn(deps: TurnRunnerDeps, progress: TurnInProgress): Promise<LiveTurn> {
  const { record } = progress;
  rememberSize(progress.history, progress.historyChars);
  const worker = deps.workerId ?? (processWorkerId ??= `${hostname()}:${process.pid}`);
  await deps.log.append(record.sessionId, { type: progress.resumed ? 'turn_resumed' : 'turn_started', turnId: record.turnId, actor: record.actor, data: { step: record.step, worker } });
  return { record, inbox: progress.inbox, history: progress.history, ...(progress.notesWaiting === undefined ? {} : { notesWaiting: progress.notesWaiting }) };
}
