/**
 * The chaos run's verdict: from what the client saw (accepted messages, approval decisions), what
 * the web chat delivered (the conversation streams in Redis), what the approval tool did (its
 * execution log), what Redis still holds (turns, mailboxes) and when each fault struck.
 */
import type { ApprovalAuditEntry } from '../src/runtime/approvals/approval-types.ts';
import type { DeliveredAnswers } from './answers.ts';
import type { ConversationScript } from './conversations.ts';
import type { StruckFault } from './faults.ts';
import type { AcceptedMessage, LoadOutcome } from './load.ts';
import type { ModelCall, StormCounts } from './model.ts';
import { countTurnsTakenOver, measureRecoveries, type Recovery } from './recovery.ts';
import type { FsyncPolicy } from './plan.ts';

/**
 * How long before a Redis SIGKILL an acknowledged write may be lost under `appendfsync everysec`,
 * in ms: Redis fsyncs once a second, and a slow fsync can delay the next by another second.
 */
const EVERYSEC_LOSS_WINDOW_MS = 2_000;

/** What the run leaves in Redis and in the tool's log. */
export interface LeftOver {
  /** Turn records still present (`<p>:s:*:turn`): turns never settled. */
  readonly turnRecords: number;
  /** Message ids still waiting in a mailbox or a turn's inbox. */
  readonly waitingIds: ReadonlySet<string>;
  /** Executions of the approval tool per approval id. */
  readonly toolRuns: ReadonlyMap<string, number>;
  /** Each requested approval's audit trail. */
  readonly approvalAudits: ReadonlyMap<string, readonly ApprovalAuditEntry[]>;
  /** Turns the event logs show started and never settled. */
  readonly turnsUnsettledInLog: number;
}

/** Every figure of one run. Counts unless named otherwise. */
export interface ChaosFigures {
  readonly fsync: FsyncPolicy;
  readonly conversations: number;
  readonly sent: number;
  readonly accepted: number;
  /** Messages never accepted (refused with a 4xx, or failing until the client gave up). */
  readonly unaccepted: number;
  readonly answered: number;
  /** Accepted, never answered, and nowhere in Redis any more. */
  readonly lost: number;
  /** Of those, accepted within 2 s before a Redis SIGKILL under `everysec` (the documented loss). */
  readonly lostToRedisKill: number;
  /** Messages answered more than once. */
  readonly duplicated: number;
  /** Answers delivered before the answer of a message sent earlier in the same conversation. */
  readonly outOfOrder: number;
  /**
   * Accepted messages still waiting, turn records left, and turns never settled (by the web
   * streams or the event logs).
   */
  readonly stuck: number;
  /**
   * Turns a killed worker was running (it had called the model for them and they were answered
   * only after the kill), all finished by another worker: proof that the kills hit turns.
   */
  readonly turnsTakenOver: number;
  readonly approvalsRequested: number;
  /** Approvals both of whose concurrent decisions were accepted, or with two decisions in their audit trail. */
  readonly approvalsDecidedTwice: number;
  /** Approved calls whose tool ran more than once. */
  readonly approvalsExecutedTwice: number;
  /** Approval messages whose card never appeared or whose decision never settled. */
  readonly approvalsUnfinished: number;
  readonly storm: StormCounts;
  /** Storm conversations answered with exactly one `error` part (their turn ended clearly). */
  readonly stormTurnsEndedInError: number;
  /** `error` parts where none was expected, and storm conversations without exactly one. */
  readonly unexpectedErrors: number;
  readonly recoveries: readonly Recovery[];
}

/** Everything the audit reads. */
export interface AuditInput {
  readonly fsync: FsyncPolicy;
  readonly scripts: readonly ConversationScript[];
  readonly load: LoadOutcome;
  readonly answers: DeliveredAnswers;
  readonly faults: readonly StruckFault[];
  readonly leftOver: LeftOver;
  readonly storm: StormCounts;
  readonly modelCalls: readonly ModelCall[];
}

/** Computes the run's figures. */
export function auditRun(input: AuditInput): ChaosFigures {
  const { scripts, load, answers, leftOver } = input;
  const storms = new Set(scripts.filter((script) => script.kind === 'storm').map((script) => script.id));
  const expectingAnswers = load.accepted.filter((message) => !storms.has(message.conversation));
  const unanswered = expectingAnswers.filter((message) => (answers.count.get(message.id) ?? 0) === 0);
  const vanished = unanswered.filter((message) => !leftOver.waitingIds.has(message.id));
  const rolledBack = input.fsync === 'everysec' ? vanished.filter((message) => acceptedBeforeRedisKill(message, input.faults)) : [];
  return {
    fsync: input.fsync,
    conversations: scripts.length,
    sent: scripts.reduce((sum, script) => sum + script.messages.length, 0),
    accepted: load.accepted.length,
    unaccepted: load.unaccepted.length,
    answered: expectingAnswers.length - unanswered.length,
    lost: vanished.length - rolledBack.length,
    lostToRedisKill: rolledBack.length,
    duplicated: [...answers.count.values()].filter((times) => times > 1).length,
    outOfOrder: countOutOfOrder(load.accepted, answers),
    stuck: unanswered.length - vanished.length + leftOver.turnRecords + Math.max(answers.unsettledTurns.length, leftOver.turnsUnsettledInLog),
    turnsTakenOver: countTurnsTakenOver(input.faults, input.modelCalls, answers),
    ...approvalFigures(input),
    storm: input.storm,
    stormTurnsEndedInError: [...storms].filter((id) => answers.errorParts.get(id) === 1).length,
    unexpectedErrors: countUnexpectedErrors(storms, answers),
    recoveries: measureRecoveries(input.faults, input.modelCalls, answers, expectingAnswers),
  };
}

function acceptedBeforeRedisKill(message: AcceptedMessage, faults: readonly StruckFault[]): boolean {
  return faults.some((fault) => fault.kind === 'Redis SIGKILL' && message.acceptedAt <= fault.at && message.acceptedAt > fault.at - EVERYSEC_LOSS_WINDOW_MS);
}

/** Per conversation, answers whose message was sent before one already answered. */
function countOutOfOrder(accepted: readonly AcceptedMessage[], answers: DeliveredAnswers): number {
  const indexOf = new Map(accepted.map((message) => [message.id, message.index]));
  let violations = 0;
  for (const sequence of answers.order.values()) {
    let highest = -1;
    const seen = new Set<string>();
    for (const id of sequence) {
      if (seen.has(id)) continue;
      seen.add(id);
      const index = indexOf.get(id) ?? -1;
      if (index < highest) violations += 1;
      highest = Math.max(highest, index);
    }
  }
  return violations;
}

function approvalFigures(input: AuditInput): Pick<ChaosFigures, 'approvalsRequested' | 'approvalsDecidedTwice' | 'approvalsExecutedTwice' | 'approvalsUnfinished'> {
  const { load, leftOver } = input;
  const decisions = (id: string): number => (leftOver.approvalAudits.get(id) ?? []).filter((entry) => entry.action === 'granted' || entry.action === 'denied').length;
  const executions = (id: string): number => Math.max(leftOver.toolRuns.get(id) ?? 0, (leftOver.approvalAudits.get(id) ?? []).filter((entry) => entry.action === 'executed').length);
  const accepted = (id: string): number => (load.approvals.find((approval) => approval.approvalId === id)?.statuses ?? []).filter((status) => status === 200).length;
  const ids = [...leftOver.approvalAudits.keys()];
  return {
    approvalsRequested: ids.length,
    approvalsDecidedTwice: ids.filter((id) => decisions(id) > 1 || accepted(id) > 1).length,
    approvalsExecutedTwice: ids.filter((id) => executions(id) > 1).length,
    approvalsUnfinished: load.cardsMissing.length + load.approvals.filter((approval) => !approval.statuses.some((status) => status === 200 || status === 409)).length,
  };
}

function countUnexpectedErrors(storms: ReadonlySet<string>, answers: DeliveredAnswers): number {
  let unexpected = 0;
  for (const [conversation, parts] of answers.errorParts) if (!storms.has(conversation)) unexpected += parts;
  for (const conversation of storms) if (answers.errorParts.get(conversation) !== 1) unexpected += 1;
  return unexpected;
}
