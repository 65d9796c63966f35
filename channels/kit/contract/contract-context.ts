/**
 * A real {@link ChannelContext} for contract and channel tests: a Redis connection to the test
 * server, the service's real intake (session mailboxes and the turn queue for messages, the inbound
 * queue for decisions, so dedupe is checked where the service checks it), the real approval store,
 * the example app, and a silent logger. Everything it opens is closed by `close()`.
 */
import { pino } from 'pino';
import { afterEach, beforeEach } from 'vitest';
import { sessionIdOf } from '../../../src/runtime/session/session-id.ts';
import { createToolRegistry } from '../../../src/protocol/tools/tool-registry.ts';
import type { ChannelAdaptor, ChannelContext } from '../../channel.ts';
import { createInboundQueue } from '../../../queues/inbound-queue.ts';
import { createTurnQueue } from '../../../queues/turn-queue.ts';
import { createInboundIntake } from '../inbound-intake.ts';
import { createSessionStore } from '../../../src/runtime/session/session-store.ts';
import { createOutbound, type Outbound } from '../../../queues/outbound-queue.ts';
import type { ChannelSender, OutboundDelivery } from '../../../queues/outbound-types.ts';
import { waitFor } from '../../../test/support/wait-for.ts';
import { loadEnv } from '../../../src/config/env.ts';
import type { RawEnv } from '../../../src/config/env-variables.ts';
import { ROUTABLE_CHANNELS, type LoadedApp, type Person } from '../../../src/runtime/app/app-types.ts';
import { createApprovalStore } from '../../../src/runtime/approvals/redis-approval-store.ts';
import { signArtifactUrl } from '../../../src/runtime/artifacts/artifact-urls.ts';
import { createRedisArtifactStore } from '../../../src/runtime/artifacts/redis-artifact-store.ts';
import { createRedisClient } from '../../../src/runtime/redis/redis-client.ts';
import { redisOptions } from '../../../queues/redis-connections.ts';

/** A context and what closes it. */
export interface ContractContext {
  readonly context: ChannelContext;
  close(): Promise<void>;
}

/** Options of {@link createContractContext}. */
export interface ContractContextOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  /** The app the channel sees (people, approvals). */
  readonly app: LoadedApp;
  /** Extra environment variables (a channel's credentials and fake provider URLs). */
  readonly env?: RawEnv;
}

/** An app with no actors or tools, and the given people: enough for a channel to match senders. */
export function peopleOnlyApp(people: readonly Person[]): LoadedApp {
  const channels = Object.fromEntries(ROUTABLE_CHANNELS.map((name) => [name, { actor: 'main' }])) as LoadedApp['channels'];
  return { name: 'contract', entryActor: 'main', actors: [], channels, people, approvals: [], schedules: [], peers: [], tools: [], config: { app: 'contract', entryActor: 'main' } };
}

/** Creates the context; call `close()` after the test. */
export function createContractContext(options: ContractContextOptions): ContractContext {
  const redis = createRedisClient(options.redisUrl, { maxRetriesPerRequest: 3 });
  const inbound = createInboundQueue({ connection: redisOptions(options.redisUrl), prefix: options.prefix });
  const turns = createTurnQueue({ connection: redisOptions(options.redisUrl), prefix: options.prefix });
  const intake = createInboundIntake({
    sessions: createSessionStore({ redis, prefix: options.prefix }),
    scheduleTurn: (sessionId, key) => turns.schedule(sessionId, key),
    decisions: inbound,
    // Any channel's decision-shaped text goes where decisions go; the adaptor is not known here.
    textRepliesDecide: () => true,
  });
  const approvals = createApprovalStore({ redis, prefix: options.prefix });
  const env = loadEnv({ REDIS_URL: options.redisUrl, LOG_LEVEL: 'silent', ...options.env }, { appDir: process.cwd() });
  const context: ChannelContext = {
    env,
    redis,
    prefix: options.prefix,
    tenantId: 'default',
    logger: pino({ level: 'silent' }),
    app: options.app,
    registry: createToolRegistry(),
    clock: () => new Date(),
    modelStatus: () => ({ configured: true, missing: [] }),
    enqueue: (injection) => intake.enqueue(injection),
    wake: (channel, conversationKey, reason) => turns.schedule(sessionIdOf('default', channel, conversationKey), reason),
    decide: (attempt) => approvals.decide(attempt),
    approvals,
    artifacts: createRedisArtifactStore({ redis, prefix: options.prefix }),
    artifactUrl: (artifactId) => signArtifactUrl({ publicUrl: env.publicUrl, artifactId, secret: 'contract-artifact-secret', now: new Date() }),
  };
  return {
    context,
    async close() {
      await inbound.close();
      await turns.close();
      await redis.quit();
    },
  };
}

/** Options of {@link useContractAdaptor}. */
export interface ContractAdaptorOptions {
  readonly redisUrl: () => string;
  readonly prefix: () => string;
  /** The people the channel sees. Default none. */
  readonly people?: readonly Person[];
  readonly create: (context: ChannelContext) => Promise<ChannelAdaptor>;
  /** The channel's environment variables (credentials, fake server URLs), read before each test. Default none. */
  readonly env?: () => RawEnv;
}

/**
 * Creates a fresh context and adaptor before each test and closes both after it. Register it after
 * any hook the adaptor's creation depends on (a fake provider).
 */
export function useContractAdaptor(options: ContractAdaptorOptions): { adaptor(): ChannelAdaptor; context(): ChannelContext } {
  let opened: ContractContext | undefined;
  let adaptor: ChannelAdaptor | undefined;
  beforeEach(async () => {
    opened = createContractContext({ redisUrl: options.redisUrl(), prefix: options.prefix(), app: peopleOnlyApp(options.people ?? []), ...(options.env === undefined ? {} : { env: options.env() }) });
    adaptor = await options.create(opened.context);
  });
  afterEach(async () => {
    await adaptor?.close();
    await opened?.close();
    adaptor = undefined;
    opened = undefined;
  });
  return {
    adaptor() {
      if (adaptor === undefined) throw new Error('The adaptor exists only inside a test.');
      return adaptor;
    },
    context() {
      if (opened === undefined) throw new Error('The context exists only inside a test.');
      return opened.context;
    },
  };
}

/** Options of {@link useContractOutbound}. */
export interface ContractOutboundOptions {
  readonly redisUrl: () => string;
  readonly prefix: () => string;
  /** The channel id: its deliveries go through `outbound-<channel>`. */
  readonly channel: string;
  /** The sender under test (the adaptor's, with test-friendly limits where the real ones are slow). */
  readonly sender: () => ChannelSender;
  /** How many messages the provider has received so far, read from the real peer. */
  readonly received: () => number;
  /** What the provider is, for the wait's message (`the SMTP server`). */
  readonly provider: string;
}

/**
 * Runs the real outbound queue for one channel during each test (register it after
 * {@link useContractAdaptor}); returns the contract's `send`: enqueue, and wait until the provider
 * received one more message, unless the queue dropped the delivery as a duplicate.
 */
export function useContractOutbound(options: ContractOutboundOptions): (delivery: OutboundDelivery) => Promise<void> {
  let outbound: Outbound | undefined;
  beforeEach(() => {
    outbound = createOutbound({ connection: redisOptions(options.redisUrl()), prefix: options.prefix(), senders: { [options.channel]: options.sender() }, backoffDelayMs: 50 });
    outbound.startWorkers();
  });
  afterEach(async () => {
    await outbound?.close();
    outbound = undefined;
  });
  return async (delivery) => {
    if (outbound === undefined) throw new Error('The outbound queue runs only inside a test.');
    const before = options.received();
    const { duplicate } = await outbound.enqueue(delivery);
    if (!duplicate) await waitFor(() => options.received() > before, `${options.provider} got the message`);
  };
}
