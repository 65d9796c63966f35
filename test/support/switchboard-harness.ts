import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createWebEventStore, type StoredWebChatEvent, type WebEventStore } from '../../channels/web/stream/event-store.ts';
import { issueSignInLink } from '../../channels/web/identity/sign-in-links.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { ModelClient } from '../../src/runtime/model/model-types.ts';
import { createEventLog, type StoredEventLogEntry } from '../../src/runtime/session/event-log.ts';
import { sessionIdOf } from '../../src/runtime/session/session-id.ts';
import { startService, type Service, type ServiceRole } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic } from '../fakes/fake-anthropic-types.ts';
import { uniquePrefix } from './redis.ts';
import { findFreePort as freePort } from '../../src/runtime/redis/free-port.ts';
import { createWebClient, type JsonAnswer, type WebClient } from '../web/web-client.ts';

/** Options of {@link SwitchboardHarness.decide}. */
export interface DecideOptions {
  /** The browser that answers. Default the harness's own browser (the one `post()` uses). */
  readonly as?: WebClient;
  /** The conversation the card was shown in (must be the browser's own). */
  readonly conversationId?: string;
  readonly argsHash?: string;
}

/** A running switchboard for a test file, with its fake model and readers of its output. */
export interface SwitchboardHarness {
  readonly url: string;
  readonly prefix: string;
  readonly fake: FakeAnthropic;
  /**
   * The harness's own browser: a web session (cookie and CSRF token) that `post()` and `decide()`
   * use unless told otherwise, and so the owner of every conversation the tests post to.
   */
  readonly browser: WebClient;
  /** Another browser, with its own session once it makes a request. */
  client(): WebClient;
  /** Posts a person's message in the web chat as `as` (default {@link browser}); resolves to the HTTP status and body. */
  post(conversationId: string, text: string, clientId?: string, as?: WebClient): Promise<JsonAnswer>;
  /** Answers an approval from the web card (`POST /api/approvals/:id`). */
  decide(approvalId: string, decision: 'granted' | 'denied', options?: DecideOptions): Promise<JsonAnswer>;
  /** Signs `as` (default a new browser) in as a configured person with a one-time link; returns it. */
  signIn(personId: string, as?: WebClient): Promise<WebClient>;
  /** Every event of a conversation's web stream so far. */
  events(conversationId: string): Promise<StoredWebChatEvent[]>;
  /** Waits until the conversation has `count` settled turns; returns all its events. */
  settled(conversationId: string, count?: number, timeoutMs?: number): Promise<StoredWebChatEvent[]>;
  /** The session event log of a web conversation. */
  log(conversationId: string): Promise<StoredEventLogEntry[]>;
  readonly redis: () => Redis;
}

/** Options of {@link useSwitchboard}. */
export interface HarnessOptions {
  readonly appDir: string;
  readonly redisUrl: () => string;
  readonly role?: ServiceRole;
  /** Key prefix; default a unique one. Worker child processes must be given the same. */
  readonly prefix?: string;
  /** How long a delegated turn waits, in ms. */
  readonly delegationTimeoutMs?: number;
  /** Overrides every approval's expiry, in ms. */
  readonly approvalTtlMs?: number;
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Listen on a free port chosen first and make it `PORT` and `PUBLIC_URL`, so that what the
   * service advertises (the Agent Card's interfaces) points at itself. Default: port 0, and
   * `PUBLIC_URL` left to the environment.
   */
  readonly selfAddressed?: boolean;
  /** Turns run at once by the service. Default the service's (`SWITCHBOARD_TURN_CONCURRENCY`, 128). */
  readonly turnConcurrency?: number;
  /**
   * Builds the model client from the fake's URL, e.g. the real SDK with a shorter timeout.
   * Default: the service's own, from the environment (the SDK with 2 retries).
   */
  readonly model?: (fakeUrl: string) => ModelClient;
}

const TERMINAL = new Set(['complete', 'clarifying', 'error', 'passed']);

/** Events that end a turn: the settlement marker of each turn. */
export function settledTurns(events: readonly StoredWebChatEvent[]): string[] {
  const seen = new Set<string>();
  for (const { event } of events) if (event.type === 'turn' && TERMINAL.has(event.turnState) && event.turnState !== 'passed') seen.add(event.turnId);
  return [...seen];
}

/** Starts a fake model and a switchboard (role `all` by default) for the file; stops them after. */
export function useSwitchboard(options: HarnessOptions): () => SwitchboardHarness {
  let harness: SwitchboardHarness | undefined;
  let service: Service | undefined;
  let fake: FakeAnthropic | undefined;
  let redis: Redis | undefined;
  let store: WebEventStore | undefined;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    const prefix = options.prefix ?? uniquePrefix('sb');
    const port = options.selfAddressed === true ? await freePort() : 0;
    const addressed = port === 0 ? {} : { PORT: String(port), PUBLIC_URL: `http://localhost:${String(port)}` };
    const env = loadEnv(
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, SWITCHBOARD_APP: options.appDir, LOG_LEVEL: 'silent', ...addressed, ...options.env },
      { appDir: options.appDir },
    );
    service = await startService({
      env,
      role: options.role ?? 'all',
      redisUrl: options.redisUrl(),
      logger: pino({ level: 'silent' }),
      prefix,
      port,
      sessionLockTtlMs: 5000,
      jobLockDurationMs: 5000,
      ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
      ...(options.delegationTimeoutMs === undefined ? {} : { delegationTimeoutMs: options.delegationTimeoutMs }),
      ...(options.turnConcurrency === undefined ? {} : { turnConcurrency: options.turnConcurrency }),
      ...(options.model === undefined ? {} : { model: options.model(fake.url) }),
    });
    redis = new Redis(options.redisUrl());
    // Outage tests stop Redis under it: its commands fail on their own, the events need no print.
    redis.on('error', () => undefined);
    const webStore = createWebEventStore({ redis, keyPrefix: prefix });
    store = webStore;
    const eventLog = createEventLog({ redis, prefix });
    const url = service.url ?? '';
    const liveFake = fake;
    const liveRedis = redis;
    const browser = createWebClient(url);
    const events = async (conversationId: string): Promise<StoredWebChatEvent[]> => webStore.readAfter(conversationId, '0', 10_000);
    harness = {
      url,
      prefix,
      fake: liveFake,
      redis: () => liveRedis,
      browser,
      client: () => createWebClient(url),
      post(conversationId, text, clientId, as = browser) {
        return as.post(`/api/chat/${conversationId}/messages`, { text, id: clientId ?? randomUUID() });
      },
      decide(approvalId, decision, options = {}) {
        const body = {
          decision,
          ...(options.conversationId === undefined ? {} : { conversationId: options.conversationId }),
          ...(options.argsHash === undefined ? {} : { argsHash: options.argsHash }),
        };
        return (options.as ?? browser).post(`/api/approvals/${approvalId}`, body);
      },
      async signIn(personId, as = createWebClient(url)) {
        const link = await issueSignInLink({ redis: liveRedis, prefix, publicUrl: url }, personId, 'invite by operator');
        const opened = await as.open(link.url);
        if (opened.status !== 303) throw new Error(`the sign-in link for ${personId} answered ${String(opened.status)}`);
        await as.session();
        return as;
      },
      events,
      async settled(conversationId, count = 1, timeoutMs = 20_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const all = await events(conversationId);
          if (settledTurns(all).length >= count) return all;
          if (Date.now() > deadline) throw new Error(`conversation ${conversationId}: ${settledTurns(all).length} of ${count} turns settled; events: ${JSON.stringify(all.map((stored) => stored.event))}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      },
      async log(conversationId) {
        return eventLog.read(sessionIdOf('default', 'web', conversationId), 10_000);
      },
    };
  });

  afterAll(async () => {
    await service?.close();
    await store?.close();
    await redis?.quit();
    await fake?.close();
  });

  return () => {
    if (harness === undefined) throw new Error('useSwitchboard(): only available inside tests');
    return harness;
  };
}
