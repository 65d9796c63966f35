/**
 * How long each fault of a chaos run took to recover from, and which turns a killed worker left
 * behind: read from the model calls (each names its process), the accepted messages and the
 * delivered answers.
 */
import type { DeliveredAnswers } from './answers.ts';
import type { FaultKind, StruckFault } from './faults.ts';
import type { AcceptedMessage } from './load.ts';
import type { ModelCall } from './model.ts';

/** How long one kind of fault took to recover from, in ms. */
export interface Recovery {
  readonly kind: FaultKind;
  readonly count: number;
  /** Recovery time of each fault of this kind; `undefined` for a fault never recovered from. */
  readonly timesMs: readonly (number | undefined)[];
}

/**
 * The turns (by their message ids) a killed worker was running: it called the model for them
 * before the kill, and their answer came only after it (or never).
 */
function turnsOfKilledWorker(fault: StruckFault, calls: readonly ModelCall[], answers: DeliveredAnswers): Map<string, readonly string[]> {
  const turns = new Map<string, readonly string[]>();
  for (const call of calls) {
    if (call.worker !== fault.worker || call.at > fault.at || call.ids.length === 0 || call.asksApproval || call.storm) continue;
    if (call.ids.every((id) => (answers.firstAt.get(id) ?? Infinity) > fault.at)) turns.set(call.ids.join(','), call.ids);
  }
  return turns;
}

/** When the last of `ids` was first answered; `undefined` when one never was. */
function answeredAt(ids: readonly string[], answers: DeliveredAnswers): number | undefined {
  let last = 0;
  for (const id of ids) {
    const at = answers.firstAt.get(id);
    if (at === undefined) return undefined;
    last = Math.max(last, at);
  }
  return last;
}

/**
 * How long each fault took to recover from, in ms after it struck:
 * - a worker SIGKILL: until every turn the killed worker was running was answered by another
 *   (0 when it was running none);
 * - a web SIGKILL: until the first message was accepted (`202`) again;
 * - a Redis restart: until the turns in flight when it struck were answered (turns of a killed
 *   worker aside, counted with their kill) and a message accepted after Redis was back was
 *   answered too.
 */
export function measureRecoveries(faults: readonly StruckFault[], modelCalls: readonly ModelCall[], answers: DeliveredAnswers, accepted: readonly AcceptedMessage[]): Recovery[] {
  const orphaned = new Set(faults.flatMap((fault) => (fault.kind === 'worker SIGKILL' ? [...turnsOfKilledWorker(fault, modelCalls, answers).keys()] : [])));
  const firstAnsweredAfter = (since: number): number | undefined =>
    accepted.filter((message) => message.acceptedAt >= since).reduce<number | undefined>((first, message) => {
      const at = answers.firstAt.get(message.id);
      return at === undefined ? first : Math.min(first ?? at, at);
    }, undefined);
  const timeOf = (fault: StruckFault): number | undefined => {
    if (fault.kind === 'worker SIGKILL') {
      const times = [...turnsOfKilledWorker(fault, modelCalls, answers).values()].map((ids) => answeredAt(ids, answers));
      if (times.includes(undefined)) return undefined;
      return Math.max(fault.at, ...times.filter((time): time is number => time !== undefined)) - fault.at;
    }
    if (fault.kind === 'web SIGKILL') {
      const firstAccepted = accepted.filter((message) => message.acceptedAt >= fault.backAt).reduce((first, message) => Math.min(first, message.acceptedAt), Infinity);
      return Number.isFinite(firstAccepted) ? firstAccepted - fault.at : undefined;
    }
    let backlogDone = fault.at;
    for (const call of modelCalls) {
      if (call.at > fault.at || call.ids.length === 0 || call.asksApproval || call.storm || orphaned.has(call.ids.join(','))) continue;
      const at = answeredAt(call.ids, answers);
      if (at !== undefined && at > fault.at) backlogDone = Math.max(backlogDone, at);
    }
    const flowing = firstAnsweredAfter(fault.backAt);
    return flowing === undefined ? undefined : Math.max(backlogDone, flowing) - fault.at;
  };
  const kinds: FaultKind[] = ['worker SIGKILL', 'web SIGKILL', 'Redis SIGTERM', 'Redis SIGKILL'];
  return kinds.map((kind) => {
    const ofKind = faults.filter((fault) => fault.kind === kind);
    return { kind, count: ofKind.length, timesMs: ofKind.map(timeOf) };
  });
}

/** Turns that killed workers were running, all kills together. */
export function countTurnsTakenOver(faults: readonly StruckFault[], calls: readonly ModelCall[], answers: DeliveredAnswers): number {
  return faults.filter((fault) => fault.kind === 'worker SIGKILL').reduce((sum, fault) => sum + turnsOfKilledWorker(fault, calls, answers).size, 0);
}
