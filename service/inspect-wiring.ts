/**
 * What the inspector records in a process (issue 26, the recording side): the redactor every log
 * and capture goes through, the conversation index, the capture store, the map of sent messages
 * that lets providers' later statuses find their session, and what the turn runner is given.
 * The inspector pages and the replay read the same stores.
 */
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { DeliveryAttemptEvent } from '../queues/outbound-types.ts';
import { SECRET_ENV_VARIABLES } from '../src/config/env-variables.ts';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { LoadedApp } from '../src/runtime/app/app-types.ts';
import { createCaptureStore, type CaptureStore } from '../src/runtime/inspect/capture-store.ts';
import { createConversationIndex } from '../src/runtime/inspect/conversation-index.ts';
import { createDeliveryStatusRecorder, type ProviderDeliveryStatus } from '../src/runtime/inspect/delivery-status.ts';
import { resolveInspectSettings, type InspectSettings } from '../src/runtime/inspect/inspect-settings.ts';
import { createRedactor, type Redactor } from '../src/runtime/inspect/redact.ts';
import { createSentMessages } from '../src/runtime/inspect/sent-messages.ts';
import type { TurnInspection } from '../src/runtime/inspect/turn-inspection.ts';
import type { EventLog } from '../src/runtime/session/event-log.ts';

/** Channels whose providers report statuses of sent messages later: their message ids are remembered. */
const STATUS_CHANNELS: ReadonlySet<string> = new Set(['sms', 'whatsapp']);

/** The recording side of the inspector in one process. */
export interface InspectWiring {
  readonly settings: InspectSettings;
  /** Every event-log entry and capture goes through it. */
  readonly redactor: Redactor;
  readonly conversations: ReturnType<typeof createConversationIndex>;
  /** Whole model calls; written only while `settings.capture` is on, readable always. */
  readonly captures: CaptureStore;
  /** What the turn runner records (its `inspect` dependency). */
  readonly turns: TurnInspection;
  /** For the channels' `reportDeliveryStatus`: writes `delivery_status`; a failure is logged, never thrown. */
  reportDeliveryStatus(report: ProviderDeliveryStatus): Promise<void>;
  /** For the outbound `onAttempt`: remembers sent message ids, marks a conversation whose delivery failed. */
  noteAttempt(event: DeliveryAttemptEvent): Promise<void>;
}

/**
 * The deployment's secrets, to be removed wherever they appear: the values of the secret
 * environment variables (`SECRET_ENV_VARIABLES`) and the peers' tokens.
 */
export function deploymentSecrets(env: Pick<SwitchboardEnv, 'lookup'>, app: Pick<LoadedApp, 'peers'>): string[] {
  const values = [...SECRET_ENV_VARIABLES].map((name) => env.lookup(name));
  return [...values, ...app.peers.map((peer) => peer.token)].filter((value): value is string => value !== undefined);
}

/** Options of {@link createInspectWiring}. */
export interface InspectWiringOptions {
  readonly app: LoadedApp;
  readonly redis: Redis;
  readonly prefix: string;
  /** Whether this process runs its own Redis (`npm start` without `REDIS_URL`): capture is then on by default. */
  readonly embeddedRedis: boolean;
  /** Made first ({@link processRedactor}): the event log needs it too. */
  readonly redactor: Redactor;
  /** Where `delivery_status` entries go: the service's event log. */
  readonly log: Pick<EventLog, 'append'>;
  readonly logger: Pick<Logger, 'warn'>;
}

/** The redactor of a process: configured secrets and credential-shaped text. */
export function processRedactor(env: Pick<SwitchboardEnv, 'lookup'>, app: Pick<LoadedApp, 'peers'>): Redactor {
  return createRedactor({ secrets: deploymentSecrets(env, app) });
}

/** Wires the recording side of one process. */
export function createInspectWiring(options: InspectWiringOptions): InspectWiring {
  const { app, redis, prefix, redactor, log, logger } = options;
  const settings = resolveInspectSettings(app.config.inspect, options.embeddedRedis);
  const conversations = createConversationIndex({ redis, prefix });
  const captures = createCaptureStore({ redis, prefix, retentionDays: settings.retentionDays, redact: redactor.value });
  const sentMessages = createSentMessages({ redis, prefix });
  const record = createDeliveryStatusRecorder({ sentMessages, log, conversations });
  return {
    settings,
    redactor,
    conversations,
    captures,
    turns: {
      costUsd: (model, usage) => settings.prices.costUsd(model, usage),
      ...(settings.capture ? { capture: captures } : {}),
      conversations,
      redactText: redactor.text,
    },
    async reportDeliveryStatus(report) {
      try {
        await record(report);
      } catch (error) {
        logger.warn({ err: error, channel: report.channel, providerMessageId: report.providerMessageId }, 'delivery status not recorded');
      }
    },
    async noteAttempt(event) {
      const { delivery, receipt } = event;
      const trace = delivery.trace;
      if (trace === undefined) return;
      if (event.outcome === 'sent' && receipt?.providerMessageId !== undefined && STATUS_CHANNELS.has(delivery.channel)) {
        await sentMessages.remember(delivery.channel, receipt.providerMessageId, { sessionId: trace.sessionId, ...(trace.turnId === undefined ? {} : { turnId: trace.turnId }), idempotencyKey: delivery.idempotencyKey });
      }
      if (event.outcome === 'failed' && trace.turnId !== undefined) await conversations.markDeliveryFailed(trace.sessionId, trace.turnId);
    },
  };
}
