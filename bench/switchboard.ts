/**
 * Switchboard under the bench: a service started with the fake model that answers at once, and a
 * {@link Target} that posts through the web chat API (one browser, with its cookie and CSRF token,
 * per conversation) and sees answers through the web event store, as the chat page does; and one
 * that calls `SendMessage` over A2A JSON-RPC as the app's one peer, the answer being the settled task.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createA2aChannelModule } from '../channels/a2a/index.ts';
import { CHANNEL_MODULES } from '../channels/registry.ts';
import { createWebEventStore } from '../channels/web/stream/event-store.ts';
import { loadEnv } from '../src/config/env.ts';
import { startService, type Service, type ServiceRole } from '../service/create-service.ts';
import { createWebClient } from '../test/web/web-client.ts';
import { createJsonPoster } from './http-post.ts';
import { instantModel } from './instant-model.ts';
import type { Target } from './load.ts';
import type { LatencyTracker } from './stats.ts';

/** The bench app (bench/app): the follow-up app and one peer. */
export const BENCH_APP_DIR = fileURLToPath(new URL('./app/', import.meta.url));

/** The token of the bench app's one peer (`bench-peer`, `token: env:BENCH_PEER_TOKEN`). */
export const PEER_TOKEN = 'bench-peer-token-0123456789abcdef';

/** The `a2a` channel with a per-peer rate limit the bench never reaches. */
export const unthrottledA2a = createA2aChannelModule({ rate: { max: 1_000_000_000, windowMs: 60_000 } });

/** Every channel, the `a2a` one {@link unthrottledA2a}. */
const channels = CHANNEL_MODULES.map((module) => (module.id === 'a2a' ? unthrottledA2a : module));

/** How a bench switchboard process is started (also the config of `bench-worker.ts`). */
export interface SwitchboardConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly role: ServiceRole;
}

/** Starts switchboard in this process with the instant model, the bench app (bench/app) and no logs. */
export async function startSwitchboard(config: SwitchboardConfig): Promise<Service> {
  const { redisUrl, prefix, role } = config;
  const env = loadEnv({ SWITCHBOARD_APP: BENCH_APP_DIR, LOG_LEVEL: 'silent', REDIS_URL: redisUrl, BENCH_PEER_TOKEN: PEER_TOKEN }, { appDir: BENCH_APP_DIR });
  return startService({ env, role, redisUrl, logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel, channels });
}

/**
 * A target of `conversations` web chat conversations (`<label>-<n>`) of the service at `url`: each
 * browser has its session before anything is timed, and each conversation is subscribed to in the
 * event store.
 */
export async function createSwitchboardTarget(url: string, redisUrl: string, prefix: string, conversations: number, label = 'bench'): Promise<Target> {
  const redis = new Redis(redisUrl);
  const store = createWebEventStore({ redis, keyPrefix: prefix });
  let tracker: LatencyTracker | undefined;
  const ids = Array.from({ length: conversations }, (_, index) => `${label}-${index}`);
  const unsubscribe = await Promise.all(
    ids.map((conversation) =>
      store.subscribe(conversation, ({ event }) => {
        if (event.type !== 'part' || event.part.metadata.partType !== 'response') return;
        tracker?.delivered((event.part.text ?? '').slice('re '.length), performance.now());
      }),
    ),
  );
  // Each browser's session (cookie and CSRF token) is made the way the page makes it; the timed
  // POSTs then go through a lean client carrying the same headers.
  const browsers = await Promise.all(
    ids.map(async () => {
      const browser = createWebClient(url);
      const session = await browser.session();
      return { cookie: browser.cookie ?? '', 'x-csrf-token': session.csrfToken };
    }),
  );
  const http = createJsonPoster(url);
  return {
    conversations,
    async send(index, key) {
      const response = await http.post(`/api/chat/${ids[index] ?? ''}/messages`, { text: key, id: key }, browsers[index] ?? {});
      if (response.status !== 202) throw new Error(`POST to conversation ${index} answered ${String(response.status)}: ${response.body}`);
    },
    track(next) {
      tracker = next;
    },
    async close() {
      http.close();
      for (const stop of unsubscribe) await stop();
      await store.close();
      await redis.quit();
    },
  };
}

/** Calls of the bench app's peer to the service at `url`: one JSON-RPC `SendMessage` each, a new task. */
export interface A2aCaller {
  /** Sends `text` and resolves once the answer, the task completed, came back; throws on any other answer. */
  call(text: string): Promise<void>;
  close(): void;
}

/** An {@link A2aCaller} of the service at `url`, with the peer's bearer token. */
export function createA2aCaller(url: string): A2aCaller {
  const http = createJsonPoster(url);
  const headers = { authorization: `Bearer ${PEER_TOKEN}`, 'a2a-version': '1.0' };
  let id = 0;
  return {
    async call(text) {
      id += 1;
      const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
      const response = await http.post('/a2a/jsonrpc', { jsonrpc: '2.0', id, method: 'SendMessage', params: { message } }, headers);
      const answer = response.status === 200 ? (JSON.parse(response.body) as { result?: { task?: { status?: { state?: string } } } }) : undefined;
      if (answer?.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`SendMessage ${text} answered ${String(response.status)}: ${response.body.slice(0, 300)}`);
    },
    close() {
      http.close();
    },
  };
}

/**
 * A target calling the service at `url` as the bench app's peer ({@link createA2aCaller}): the
 * answer is the delivery and the latency is the round trip. `callers` (default 1) is how many
 * calls a closed loop keeps under way, one after another each (the tasks are independent).
 */
export function createA2aTarget(url: string, callers = 1): Target {
  const caller = createA2aCaller(url);
  let tracker: LatencyTracker | undefined;
  return {
    conversations: callers,
    async send(_index, key) {
      await caller.call(key);
      tracker?.delivered(key, performance.now());
    },
    track(next) {
      tracker = next;
    },
    close() {
      caller.close();
      return Promise.resolve();
    },
  };
}
