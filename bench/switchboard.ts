/**
 * Switchboard under the bench: a service started with the fake model that answers at once, and a
 * {@link Target} that posts through the web chat API (one browser, with its cookie and CSRF token,
 * per conversation) and sees answers through the web event store, as the chat page does.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createWebEventStore } from '../channels/web/stream/event-store.ts';
import { loadEnv } from '../src/config/env.ts';
import { startService, type Service, type ServiceRole } from '../src/runtime/service/create-service.ts';
import { createWebClient } from '../test/web/web-client.ts';
import { createJsonPoster } from './http-post.ts';
import { instantModel } from './instant-model.ts';
import type { Target } from './load.ts';
import type { LatencyTracker } from './stats.ts';

const appDir = fileURLToPath(new URL('../test/fixtures/followup-app/', import.meta.url));

/** How a bench switchboard process is started (also the config of `bench-worker.ts`). */
export interface SwitchboardConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly role: ServiceRole;
}

/** Starts switchboard in this process with the instant model, the follow-up app and no logs. */
export async function startSwitchboard(config: SwitchboardConfig): Promise<Service> {
  const { redisUrl, prefix, role } = config;
  const env = loadEnv({ SWITCHBOARD_APP: appDir, LOG_LEVEL: 'silent', REDIS_URL: redisUrl }, { appDir });
  return startService({ env, role, redisUrl, logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel });
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
