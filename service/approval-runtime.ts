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
import { approvalDestinations } from './approval-announcements.ts';
import type { WiredChannels } from './channel-wiring.ts';

/** Options of {@link createApprovalRuntime}. */
export interface ApprovalRuntimeOptions {
  readonly store: ApprovalStore;
  readonly turnQueue: Pick<TurnQueue, 'schedule'>;
  readonly connection: RedisConnectionInput;
  readonly prefix: string;
  readonly logger: Logger;
}

/** Decisions and expiries, wired to the channels once they exist. */
export interface ApprovalRuntime {
  decide(attempt: DecisionAttempt): Promise<DecisionOutcome>;
  /** Schedules the expiry of a new approval. */
  scheduleExpiry(approvalId: string, at: Date): Promise<void>;
  /** Gives the runtime the channels that show approvals (they are created with `decide`). */
  attach(channels: WiredChannels): void;
  /** Runs the expiry worker in this process. */
  startWorker(): void;
  close(): Promise<void>;
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

  const expiry = createApprovalExpiry({
    connection: options.connection,
    prefix: options.prefix,
    onExpire: async (approvalId) => {
      const outcome = await store.expire(approvalId);
      if (outcome.ok) await afterDecision(outcome.record);
    },
    onError: (error) => { logger.error({ err: error }, 'approval expiry'); },
  });

  return {
    async decide(attempt) {
      const outcome = await store.decide(attempt);
      logger.info({ approvalId: attempt.approvalId, decision: attempt.decision, by: attempt.by, ok: outcome.ok, refusal: outcome.ok ? undefined : outcome.refusal }, 'approval decision');
      if (outcome.ok) await afterDecision(outcome.record);
      return outcome;
    },
    scheduleExpiry: (approvalId, at) => expiry.schedule(approvalId, at),
    attach(wired) {
      channels = wired;
    },
    startWorker: () => { expiry.startWorker(); },
    close: () => expiry.close(),
  };
}
