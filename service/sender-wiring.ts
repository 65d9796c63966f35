/**
 * The sender policy in the service: each channel's policy (`switchboard.yaml`, else the channel's
 * default), the Redis store, and the gate the intake asks before it stores a message. Pairing codes
 * and refusals go out as `notice`s through the channel's normal outbound path; each decision is
 * counted in `/metrics` (`switchboard_sender_policy_total{channel,outcome}`) and written to the
 * session's event log (`sender_policy`).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { ChannelName, LoadedApp } from '../src/runtime/app/app-types.ts';
import type { Injection } from '../src/runtime/injection.ts';
import { approveAddress, approvePairing, type PairingApproval } from '../src/runtime/senders/release-held.ts';
import { createSenderGate, type SenderGate, type SenderOutcomeEvent } from '../src/runtime/senders/sender-gate.ts';
import { senderPolicies, type SenderPolicy } from '../src/runtime/senders/sender-policy.ts';
import { createSenderStore, type SenderStore, type SenderStoreOptions } from '../src/runtime/senders/sender-store.ts';
import type { EventLog } from '../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../src/runtime/session/session-id.ts';
import type { WiredChannels } from './channel-wiring.ts';
import type { Metrics } from './metrics.ts';

/** Options of {@link wireSenders}. */
export interface SenderWiringOptions {
  readonly app: LoadedApp;
  readonly env: SwitchboardEnv;
  readonly redis: Redis;
  readonly prefix: string;
  readonly metrics: Metrics;
  readonly eventLog: Pick<EventLog, 'append'>;
  readonly logger: Pick<Logger, 'warn'>;
  /** Puts an admitted message into its session's mailbox and asks for a turn. */
  readonly accept: (injection: Injection) => Promise<unknown>;
  /** The wired channels, once they are (notices are sent through them). */
  readonly channels: () => WiredChannels | undefined;
  /** Overrides of the store's limits (code lifetime, codes a day, ...), for tests. */
  readonly store?: Omit<SenderStoreOptions, 'redis' | 'prefix'>;
}

/** The sender policy of one process. */
export interface SenderWiring {
  /** Every channel's policy, defaults applied. */
  readonly policies: Readonly<Record<ChannelName, SenderPolicy>>;
  readonly store: SenderStore;
  readonly gate: SenderGate;
  /** Approves a pairing code as `approver` and lets the sender's held messages through. */
  approve(code: string, approver: string): Promise<PairingApproval>;
  /** Approves a sender by address, without a code, and lets any held messages of theirs through. */
  allow(channel: string, address: string, approver: string): ReturnType<typeof approveAddress>;
}

/** What the event log keeps of one decision. */
function logData(event: SenderOutcomeEvent): Record<string, unknown> {
  return {
    outcome: event.outcome,
    mode: event.policy.mode,
    sender: event.injection.sender.id,
    injectionId: event.injection.id,
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    ...(event.released === undefined ? {} : { released: event.released }),
  };
}

/** Builds the policies, the store and the gate. */
export function wireSenders(options: SenderWiringOptions): SenderWiring {
  const { metrics, eventLog } = options;
  const whatsappMode = options.env.whatsapp?.mode;
  const policies = senderPolicies(options.app.senders, whatsappMode === undefined ? {} : { whatsappMode });
  const store = createSenderStore({ redis: options.redis, prefix: options.prefix, ...options.store });
  const gate = createSenderGate({
    policies,
    store,
    accept: options.accept,
    async notify(destination, text, key) {
      const sent = await options.channels()?.send(destination, { type: 'notice', id: key, text }, key);
      if (sent !== true) options.logger.warn({ channel: destination.channel }, 'senders: the channel is not running here; notice not sent');
    },
    async onOutcome(event) {
      const { injection } = event;
      metrics.count('switchboard_sender_policy_total', { channel: injection.channel, outcome: event.outcome });
      // An open channel lets everyone in: its log says nothing new unless held messages went with it.
      if (event.outcome === 'allowed' && event.policy.mode === 'open' && event.released === undefined) return;
      await eventLog.append(sessionIdOf(injection.tenantId, injection.channel, injection.conversationKey), { type: 'sender_policy', data: logData(event) });
    },
  });
  return {
    policies,
    store,
    gate,
    approve: (code, approver) => approvePairing({ store, accept: options.accept }, code, approver),
    allow: (channel, address, approver) => approveAddress({ store, accept: options.accept }, channel, address, approver),
  };
}
