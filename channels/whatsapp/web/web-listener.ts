/**
 * The WhatsApp Web listener: the one linked-device session, run only by the worker holding its
 * lease (`singletonKey`). Each attempt builds a client through the factory, with the session kept
 * in Redis (`RemoteAuth` with the fenced store) or in `WHATSAPP_SESSION_DIR` (`LocalAuth`); its
 * events move the link state the operator page shows; messages from others become events for the
 * intake; once ready, messages that arrived while offline are caught up and the outbox is served.
 * A dropped, refused or failed session is followed by a new client after a backoff (0.5 s doubling
 * to 60 s); after a log-out on the phone the kept session is cleared first, so a new QR is shown.
 */
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { reconnectDelayMs, type ReconnectBackoff } from '../../../queues/redis-connections.ts';
import type { WhatsAppWebEnv } from '../../../src/config/env-types.ts';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import { DEFAULT_ARTIFACT_MAX_BYTES } from '../../../src/runtime/artifacts/redis-artifact-store.ts';
import type { ChannelListener, ListenerFence, RunningListener } from '../../channel.ts';
import { pause, systemClock } from '../../kit/lease/lease-clock.ts';
import type { WhatsAppIntake } from '../whatsapp-event.ts';
import { endingState } from './ending-state.ts';
import { createLinkStateStore, type LinkStateUpdate } from './link-state.ts';
import type { WebGroupPolicy } from './read-web-message.ts';
import { createRedisSessionStore } from './redis-session-store.ts';
import { isStaleFence, runWebClient, type WebClientEnding } from './run-web-client.ts';
import type { TakeRetry } from './take-with-retry.ts';
import { REMOTE_SESSION_NAME, type WebAuth, type WebClientFactory, type WhatsAppWebClient } from './web-client.ts';
import { WEB_SESSION_KEY } from './web-keys.ts';
import { createSessionHooks } from './web-session-hooks.ts';

/** Options of {@link createWebListener}. */
export interface WebListenerOptions {
  /** Makes each client: `createWebClient` in production. */
  readonly factory: WebClientFactory;
  readonly env: WhatsAppWebEnv;
  /** The command connection; never closed here. */
  readonly redis: Redis;
  readonly prefix: string;
  readonly intake: WhatsAppIntake;
  readonly artifacts: ArtifactStore;
  readonly logger: Logger;
  readonly clock: () => Date;
  /** Which group messages start turns. */
  readonly groups: WebGroupPolicy;
  /** Delays between clients. Default 500 ms doubling up to 60000 ms; reset by a session ready for a minute. */
  readonly backoff?: ReconnectBackoff;
  /** Retries of an intake that rejects. Default 5 tries, 500 ms doubling up to 8000 ms. */
  readonly takeRetry?: TakeRetry;
  /** RemoteAuth's working folder. Default `<tmpdir>/switchboard-whatsapp-<pid>`. */
  readonly dataPath?: string;
  /** How often RemoteAuth saves the session again once ready, in ms (at least 60000). Default 300000. */
  readonly backupSyncIntervalMs?: number;
  /** Shows a new QR code in the terminal. Default `printQrCode` (`qr-terminal.ts`) to standard output. */
  readonly printQr?: (qr: string) => Promise<void>;
  /** Largest medium kept, in bytes. Default 10 MiB. */
  readonly maxMediaBytes?: number;
}

/** A session ready this long resets the backoff, in ms. */
const HEALTHY_MS = 60_000;

/** Where the session is kept for this acquisition of the lease. */
function authFor(options: WebListenerOptions, fence: ListenerFence, dataPath: string): WebAuth {
  if (options.env.sessionDir !== undefined) return { kind: 'local', sessionDir: options.env.sessionDir };
  const store = createRedisSessionStore({ redis: options.redis, prefix: options.prefix, fence, dataPath });
  return { kind: 'remote', store, dataPath, backupSyncIntervalMs: options.backupSyncIntervalMs ?? 300_000 };
}

async function clearSession(auth: WebAuth): Promise<void> {
  if (auth.kind === 'remote') await auth.store.delete({ session: REMOTE_SESSION_NAME });
  else await rm(join(auth.sessionDir, 'session'), { recursive: true, force: true });
}

/**
 * Drops a session kept in Redis once WhatsApp asks for a QR code anyway: it no longer links, and
 * RemoteAuth would otherwise keep it until its first periodic backup, so a process taking over in
 * between would resume a dead session. (A `LocalAuth` folder is the running browser's profile: left alone.)
 */
async function forgetStaleSession(auth: WebAuth): Promise<void> {
  if (auth.kind === 'remote' && (await auth.store.sessionExists({ session: REMOTE_SESSION_NAME }))) await clearSession(auth);
}

async function runSessions(options: WebListenerOptions, fence: ListenerFence, signal: AbortSignal): Promise<void> {
  const logger = options.logger.child({ channel: 'whatsapp', listener: 'web', fence: fence.token });
  const dataPath = options.dataPath ?? join(tmpdir(), `switchboard-whatsapp-${String(process.pid)}`);
  await mkdir(dataPath, { recursive: true });
  const auth = authFor(options, fence, dataPath);
  const links = createLinkStateStore({ redis: options.redis, prefix: options.prefix, clock: options.clock });
  const link = async (update: LinkStateUpdate): Promise<void> => {
    try {
      await links.write(fence, update);
    } catch (error) {
      if (isStaleFence(error)) throw error;
      logger.warn({ err: error, status: update.status }, 'whatsapp: link state not recorded');
    }
  };
  let failures = 0;
  let number: string | undefined;
  while (!signal.aborted) {
    let client: WhatsAppWebClient;
    try {
      client = options.factory({ chromiumPath: options.env.chromiumPath, auth });
    } catch (error) {
      if (!(await afterEnding({ kind: 'failed', error }, 0))) return;
      continue;
    }
    const hooks = createSessionHooks({ ...options, client, fence, signal, logger, link, maxMediaBytes: options.maxMediaBytes ?? DEFAULT_ARTIFACT_MAX_BYTES, onQrShown: () => forgetStaleSession(auth) });
    const ending = await runWebClient(client, hooks, { signal, logger, onEnd: () => hooks.end() });
    if (hooks.number !== undefined) number = hooks.number;
    if (ending.kind === 'stopped' || (ending.kind === 'failed' && isStaleFence(ending.error))) return;
    if (!(await afterEnding(ending, hooks.readyForMs()))) return;
  }

  /** Records the ending and waits out the backoff; `false` when the listener must end. */
  async function afterEnding(ending: Exclude<WebClientEnding, { kind: 'stopped' }>, readyForMs: number): Promise<boolean> {
    failures = readyForMs >= HEALTHY_MS ? 1 : failures + 1;
    const delayMs = reconnectDelayMs(failures, { baseDelayMs: 500, maxDelayMs: 60_000, ...options.backoff });
    const { update, clearSession: clear } = endingState(ending, delayMs, number);
    logger.warn({ status: update.status, detail: update.detail, delayMs }, 'whatsapp: session ended; starting a new one after the backoff');
    try {
      if (clear) await clearSession(auth);
      await link(update);
    } catch (error) {
      if (isStaleFence(error)) return false;
      logger.warn({ err: error }, 'whatsapp: the kept session was not cleared');
    }
    await pause(systemClock, delayMs, signal);
    return true;
  }
}

async function startWebSession(options: WebListenerOptions, fence: ListenerFence): Promise<RunningListener> {
  const stopping = new AbortController();
  const signal = AbortSignal.any([stopping.signal, fence.signal]);
  await createLinkStateStore({ redis: options.redis, prefix: options.prefix, clock: options.clock }).write(fence, { status: 'starting' });
  const loop = runSessions(options, fence, signal).catch((error: unknown) => {
    options.logger.error({ err: error, channel: 'whatsapp' }, 'whatsapp: the web session ended');
  });
  // Ends by itself only when the lease turned out lost or the loop failed: the runner then starts over.
  const closed = loop.then(() => (stopping.signal.aborted ? new Promise<never>(() => undefined) : 'ended'));
  return {
    closed,
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}

/**
 * Creates the listener (`singletonKey` {@link WEB_SESSION_KEY}): one WhatsApp Web session across
 * every process, started only under the service's lease.
 *
 * @example
 * const listener = createWebListener({ factory: createWebClient, env: env.whatsapp, redis, prefix, intake, artifacts, logger, clock, groups: 'mentions' });
 */
export function createWebListener(options: WebListenerOptions): ChannelListener {
  return {
    singletonKey: WEB_SESSION_KEY,
    start(fence) {
      if (fence === undefined) return Promise.reject(new Error('The WhatsApp Web listener runs only under its lease.'));
      return startWebSession(options, fence);
    },
  };
}
