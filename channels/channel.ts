/**
 * The channel adaptor contract: what every channel (web chat, email, SMS, Slack, WhatsApp) gives
 * the service, and what the service gives every channel. A channel is one folder under
 * `channels/` with the same inner shape (`index.ts`, `inbound`, `normalise`, `render`, `send`,
 * `approvals`, `doctor`, tests) and one line in `channels/registry.ts`. See `channels/README.md`.
 *
 * Types only: the service wires every channel the same way (`service/channel-wiring.ts`).
 */
import type { ProviderDeliveryStatus } from '../src/runtime/inspect/delivery-status.ts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChannelSender } from '../queues/outbound-types.ts';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { DeliveryClass } from '../src/protocol/parts/part.ts';
import type { LoadedApp } from '../src/runtime/app/app-types.ts';
import type { ToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { MidTurnMode } from '../src/runtime/actor/actor-config.ts';
import type { ApprovalStore, DecisionAttempt, DecisionOutcome } from '../src/runtime/approvals/approval-types.ts';
import type { ArtifactStore } from '../src/runtime/artifacts/artifact-store.ts';
import type { Route } from '../src/runtime/http/router.ts';
import type { RenderInput } from '../src/runtime/delivery/render-input.ts';
import type { Destination, Injection } from '../src/runtime/injection.ts';
import type { AcceptCondition } from '../src/runtime/session/session-store.ts';

export type { RenderInput };

/** How a channel takes an actor's output: parts as they arrive, or one envelope at settlement. */
export type TransportClass = DeliveryClass;

/** One message in the channel's own shape (JSON-serialisable), as the channel's sender takes it. */
export type ChannelMessage = Readonly<Record<string, unknown>>;

/** One line of `switchboard doctor`. */
export interface DoctorCheck {
  readonly name: string;
  readonly status: 'ok' | 'fail' | 'off';
  readonly detail: string;
}

/** A running long-lived listener (IMAP IDLE, a WhatsApp Web session, Slack Socket Mode). */
export interface RunningListener {
  /** Stops listening and closes every connection the listener opened. */
  stop(): Promise<void>;
  /**
   * Settles when the listener ends by itself (its connection closed for good). A singleton
   * listener is then restarted after a backoff, under the lease again. Default: never.
   */
  readonly closed?: Promise<unknown>;
}

/** The fence of a held singleton lease, handed to a listener that must run once per account. */
export interface ListenerFence {
  /** The lease's Redis key: with {@link ListenerFence.token}, what `channels/kit/lease/fenced-write.ts` checks. */
  readonly leaseKey: string;
  /** Monotonic per lease key: a write carrying a lower token than the latest is refused. */
  readonly token: number;
  /** Aborted when the lease is lost; the listener must then stop at once. */
  readonly signal: AbortSignal;
}

/** A channel's long-lived listener, started by worker processes. */
export interface ChannelListener {
  /**
   * Present for listeners that must run once per account across every process: the lease key
   * (e.g. `email:bot@example.com`). The service holds a Redis lease with a fencing token for it
   * and starts the listener only while it holds the lease; another process takes over when the
   * holder dies. Absent: every worker process runs its own listener.
   */
  readonly singletonKey?: string;
  /** Starts listening; `fence` is given for singleton listeners. */
  start(fence: ListenerFence | undefined): Promise<RunningListener>;
}

/** How approvals reach people on this channel and come back. */
export interface ChannelApprovals {
  /**
   * Whether reply text on this channel can decide (`APPROVE ABC123`, parsed by the kit's shared
   * parser before the message reaches an actor). Button channels decide in their own inbound
   * route or send `approval-response` injections.
   */
  readonly textReplies: boolean;
  /**
   * Where approval requests go on this channel for an approver identity (an approver is listed
   * with each address of each configured person, on whatever channel), or `undefined` when this
   * channel cannot reach that identity. Every enabled channel is asked about every approver.
   */
  destinationFor(approver: { readonly channel: string; readonly address: string; readonly personId?: string }): Destination | undefined;
}

/** A created channel: what the service wires. */
export interface ChannelAdaptor {
  /** Channel id, as in `Destination.channel` and `switchboard.yaml` (`web`, `email`, ...). */
  readonly id: string;
  readonly transport: TransportClass;
  /**
   * `direct`: the sender is called from the turn worker, in order (the web chat's own Redis
   * stream). `queue`: every message goes through the outbound queue `outbound-<id>` with its
   * retries, rate limits and idempotency ledger (every external provider).
   */
  readonly outbound: 'direct' | 'queue';
  /**
   * True for a `direct` sender that only writes to Redis over {@link ChannelContext.redis} (the
   * connection the turn's log and record are written on): its sends leave with the turn's log
   * writes and Redis runs them after those (see `ChannelDelivery.writesInOrder`). Default false.
   */
  readonly writesInOrder?: boolean;
  /** HTTP routes (webhooks, pages), mounted by processes of role `web` or `all`. */
  readonly routes: readonly Route[];
  /** A long-lived listener, run by processes of role `worker` or `all`. */
  readonly listener?: ChannelListener;
  /**
   * From the provider's event (already verified by the inbound route or listener) to an
   * injection; `undefined` for an event that starts no turn (the bot's own message, an edit).
   * Throws `SwitchboardError('channel.invalid')` for an event it cannot read.
   */
  normalise(event: unknown): Injection | undefined;
  /** Renders one output for one destination into the channel's messages (none to skip it). */
  render(input: RenderInput, destination: Destination): readonly ChannelMessage[];
  /** Sends one rendered message; see {@link ChannelSender} for the error contract. */
  readonly sender: ChannelSender;
  readonly approvals: ChannelApprovals;
  /**
   * How messages that arrive during a turn are handled on this channel, whatever the app says:
   * `followup` when each message must get a turn (and an answer) of its own, as a peer's task
   * does. Default: the app's route, then the actor's `midTurn`.
   */
  readonly midTurn?: MidTurnMode;
  /**
   * Whether the caller behind `destination` asked the running turn to stop (a peer canceled its
   * task). Asked before each model call of the turn. Default: never.
   */
  stopRequested?(destination: Destination): Promise<boolean>;
  /**
   * The part types the receiver behind `destination` accepts, when it is a peer agent: the
   * settlement then makes `llm-context` when it asks for it and drops parts it does not consume.
   * `undefined` (or no method): not a peer.
   */
  peerOf?(destination: Destination): Promise<{ readonly envelopeConsumes: readonly string[] } | undefined>;
  /** Closes what {@link ChannelModule.create} opened. */
  close(): Promise<void>;
}

/** What the service gives every channel it creates. */
export interface ChannelContext {
  readonly env: SwitchboardEnv;
  /** The service's shared command connection; do not close it. */
  readonly redis: Redis;
  /** Key prefix of everything the service keeps in Redis. */
  readonly prefix: string;
  readonly tenantId: string;
  readonly logger: Logger;
  readonly app: LoadedApp;
  /** The app's tools (a channel that serves peers offers the `peerExposed` ones). */
  readonly registry: ToolRegistry;
  readonly clock: () => Date;
  /** Whether the model endpoint is configured, and which variables are missing. */
  readonly modelStatus: () => { readonly configured: boolean; readonly missing: readonly string[] };
  /**
   * Durably enqueues an inbound injection; `duplicate: true` when its id was enqueued before
   * (dedupe happens here, at enqueue). Rejects when Redis cannot take it: answer the provider
   * with an error so it retries. With `condition` (a key that must still exist, such as the web
   * chat's sign-in session), nothing is stored once it is gone, and the answer has `lapsed: true`.
   */
  enqueue(injection: Injection, condition?: AcceptCondition): Promise<{ readonly duplicate: boolean; readonly lapsed?: true }>;
  /**
   * Asks for a turn of the conversation `conversationKey` on `channel` (e.g. so that a waiting turn
   * sees that its caller canceled it); `reason` names the request (a repeat is one job).
   */
  wake(channel: string, conversationKey: string, reason: string): Promise<void>;
  /** The one atomic decision of an approval, the same for every channel and the web card. */
  decide(attempt: DecisionAttempt): Promise<DecisionOutcome>;
  readonly approvals: Pick<ApprovalStore, 'get' | 'findByShortCode' | 'pendingFor'>;
  /** Where files sent by people (attachments, media) are kept, and read back for outbound attachments. */
  readonly artifacts: ArtifactStore;
  /**
   * A short-lived signed link (`<PUBLIC_URL>/artifacts/<id>?expires=…&sig=…`, 15 minutes) to a
   * stored artifact, for providers that fetch media by URL (MMS) and channels without attachments.
   */
  artifactUrl(artifactId: string): string;
  /**
   * Records a provider's later status of a message the service sent (a Twilio status callback,
   * WhatsApp's `statuses`) in the log of the session it belongs to. Call it once per status
   * change, after saving it; it never throws for an unknown message. Absent: not recorded.
   */
  reportDeliveryStatus?(report: ProviderDeliveryStatus): Promise<void>;
}

/** A registered channel: `channels/registry.ts` lists one per folder. */
export interface ChannelModule {
  readonly id: string;
  /** The environment variables the channel reads (validated once in `src/config`). */
  readonly envVariables: readonly string[];
  /** Whether the environment turns the channel on. */
  enabled(env: SwitchboardEnv): boolean;
  create(context: ChannelContext): Promise<ChannelAdaptor>;
  /** Checks for `switchboard doctor`: configuration and reachability, without the service running. */
  doctor(env: SwitchboardEnv): Promise<readonly DoctorCheck[]>;
}
