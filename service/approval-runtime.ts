/**
 * The service's approval decisions: one `decide` for every channel and the web card, the expiry
 * jobs, and what follows a decision (cancel the expiry, update every place the request was shown,
 * resume the turn).
 */
import type { Logger } from 'pino';
import { createApprovalExpiry } from '../queues/approval-expiry-queue.ts';
import type { RedisConnectionInput } from '../queues/redis-connections.ts';
import type { TurnQueue } from '../queues/turn-queue.ts';
import type { ApprovalRecord, ApprovalStore, DecisionAttempt, DecisionOutcome } from '../src/runtime/approvals/approval-types.ts';
import { approvalDecidedEntry, approvalExpiredEntry } from '../src/runtime/inspect/approval-entries.ts';
import type { EventLog } from '../src/runtime/session/event-log.ts';
import { approvalDestinations } from './approval-announcements.ts';
import type { WiredChannels } from './channel-wiring.ts';

/** Options of {@link createApprovalRuntime}. */
export interface ApprovalRuntimeOptions {
  readonly store: ApprovalStore;
  readonly turnQueue: Pick<TurnQueue, 'schedule'>;
  readonly connection: RedisConnectionInput;
  readonly prefix: string;
  readonly logger: Logger;
  /**
   * Where each decision and expiry is recorded, as an `approval` entry of the session whose turn
   * asked (`src/runtime/inspect/approval-entries.ts`). Default: not recorded.
   */
  readonly log?: Pick<EventLog, 'append'>;
}

/** Decisions and expiries, wired to the channels once they exist. */
export interface ApprovalRuntime {
  decide(attempt: DecisionAttempt): Promise<DecisionOutcome>;
  /** Schedules the expiry of a new approval. */
  scheduleExpiry(approvalId: string, at: Date): Promise<void>;
  /**
   * Withdraws a pending approval now (its turn stopped): it ends as expired, and every place the
   * request was shown is updated, as at its expiry.
   */
  withdraw(approvalId: string): Promise<void>;
  /** Gives the runtime the channels that show approvals (they are created with `decide`). */
  attach(channels: WiredChannels): void;
  /** Runs the expiry worker in this process. */
  startWorker(): void;
  close(): Promise<void>;
}

/**
 * How a decision attempt is logged: a decision taken at `info` (`approval decided`); a refused one
 * (a forged sender, someone who may not approve, too late, already decided) at `warn` with the
 * refusal and its reason (`approval decision refused`), never as if the decision had been taken.
 */
export function decisionLogLine(attempt: DecisionAttempt, outcome: DecisionOutcome): { level: 'info' | 'warn'; fields: Record<string, unknown>; message: string } {
  const facts = { approvalId: attempt.approvalId, asked: attempt.decision, by: attempt.by };
  if (outcome.ok) return { level: 'info', fields: { ...facts, decision: attempt.decision }, message: 'approval decided' };
  return { level: 'warn', fields: { ...facts, refusal: outcome.refusal, reason: outcome.message }, message: 'approval decision refused' };
}

/** Creates the approval runtime of one process. */
export function createApprovalRuntime(options: ApprovalRuntimeOptions): ApprovalRuntime {
  const { store, logger } = options;
  let channels: WiredChannels | undefined;

  const afterDecision = async (record: ApprovalRecord): Promise<void> => {
    await expiry.cancel(record.approvalId);
    if (channels !== undefined) {
      for (const destination of approvalDestinations(record, channels.adaptors)) {
        const key = `approval:${record.approvalId}|${destination.channel}:${destination.address}`;
        await channels.send(destination, { type: 'approval-update', record }, key, { sessionId: record.sessionId, turnId: record.turnId });
      }
    }
    await options.turnQueue.schedule(record.sessionId, `resume-${record.approvalId}`);
  };

  /** Ends a pending approval as expired, and everything that follows a decision. */
  const expireNow = async (approvalId: string): Promise<void> => {
    const outcome = await store.expire(approvalId);
    if (!outcome.ok) return;
    await options.log?.append(outcome.record.sessionId, approvalExpiredEntry(outcome.record));
    await afterDecision(outcome.record);
  };

  const expiry = createApprovalExpiry({
    connection: options.connection,
    prefix: options.prefix,
    onExpire: expireNow,
    onError: (error) => { logger.error({ err: error }, 'approval expiry'); },
  });

  return {
    async decide(attempt) {
      const outcome = await store.decide(attempt);
      const line = decisionLogLine(attempt, outcome);
      logger[line.level](line.fields, line.message);
      if (!outcome.ok) return outcome;
      await options.log?.append(outcome.record.sessionId, approvalDecidedEntry(outcome.record, attempt.argsHash !== undefined));
      await afterDecision(outcome.record);
      return outcome;
    },
    scheduleExpiry: (approvalId, at) => expiry.schedule(approvalId, at),
    withdraw: expireNow,
    attach(wired) {
      channels = wired;
    },
    startWorker: () => { expiry.startWorker(); },
    close: () => expiry.close(),
  };
}
