import type { Redis } from 'ioredis';
import type { ProxyRange, SwitchboardEnv } from '../src/config/env-types.ts';
import type { ActorConfig } from '../src/runtime/actor/actor-config.ts';
import type { LoadedApp } from '../src/runtime/app/load-app.ts';
import { agentCardJson, serviceAgentCard } from '../src/runtime/app/service-agent-card.ts';
import { authorize } from '../src/runtime/http/operator-access.ts';
import { sendJson, type Route } from '../src/runtime/http/router.ts';
import type { Metrics } from './metrics.ts';

/** Options of {@link createOpsRoutes}. */
export interface OpsRoutesOptions {
  readonly redis: Redis;
  readonly metrics: Metrics;
  readonly env: SwitchboardEnv;
  readonly app: LoadedApp;
  readonly actors: readonly ActorConfig[];
  /** Bearer token of the operator pages, which `/metrics` is one of; unset: loopback clients only. */
  readonly adminToken: string | undefined;
  /** `TRUST_PROXY`: proxies whose `X-Forwarded-For` decides who is a loopback client. Default none. */
  readonly trustProxy?: readonly ProxyRange[];
}

/** How long `/readyz` waits for Redis' `PONG`, in milliseconds. */
const READY_TIMEOUT_MS = 1_000;

/**
 * `ok` when Redis answers `PING` within `timeoutMs`, else why not. The client fails fast while
 * disconnected; the timeout covers a connection that hangs without closing.
 */
async function redisCheck(redis: Redis, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => { resolve(`no answer within ${String(timeoutMs)} ms`); }, timeoutMs);
  });
  const ping = redis.ping().then(
    () => 'ok',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Operational endpoints: `/healthz` (the process answers, whatever Redis does), `/readyz` (200
 * when Redis answers `PING` within a second, else 503 naming why; no restart is needed when it
 * comes back), `/metrics`
 * (Prometheus text, guarded like the operator pages: bearer `ADMIN_TOKEN`, or loopback clients
 * only when unset) and `/.well-known/agent-card.json` (the A2A Agent Card of
 * {@link serviceAgentCard}, in its A2A JSON form).
 */
export function createOpsRoutes(options: OpsRoutesOptions): Route[] {
  const card = agentCardJson(serviceAgentCard({ publicUrl: options.env.publicUrl, app: { name: options.app.name, actors: options.actors } }));
  return [
    {
      method: 'GET',
      pattern: '/healthz',
      handler: ({ res }) => {
        sendJson(res, 200, { ok: true });
        return Promise.resolve();
      },
    },
    {
      method: 'GET',
      pattern: '/readyz',
      handler: async ({ res }) => {
        const checks: Record<string, string> = { redis: await redisCheck(options.redis, READY_TIMEOUT_MS) };
        const ready = Object.values(checks).every((value) => value === 'ok');
        sendJson(res, ready ? 200 : 503, { ready, checks });
      },
    },
    {
      method: 'GET',
      pattern: '/metrics',
      handler: ({ req, res }) => {
        if (!authorize(req, res, options)) return Promise.resolve();
        const body = options.metrics.render();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(body);
        return Promise.resolve();
      },
    },
    {
      method: 'GET',
      pattern: '/.well-known/agent-card.json',
      handler: ({ res }) => {
        sendJson(res, 200, card);
        return Promise.resolve();
      },
    },
  ];
}
