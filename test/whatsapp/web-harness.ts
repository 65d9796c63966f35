/**
 * A WhatsApp Web listener under a real lease against the test's Redis, with the fake
 * whatsapp-web.js client, a recording intake and the real artifact store.
 */
import { afterEach } from 'vitest';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { RunningListener } from '../../channels/channel.ts';
import { createLease, type Fence } from '../../channels/kit/lease/lease.ts';
import type { WhatsAppEvent, WhatsAppIntake } from '../../channels/whatsapp/whatsapp-event.ts';
import { createLinkStateStore, type LinkState, type LinkStateStore } from '../../channels/whatsapp/web/link-state.ts';
import type { WebGroupPolicy } from '../../channels/whatsapp/web/read-web-message.ts';
import { createWebListener, type WebListenerOptions } from '../../channels/whatsapp/web/web-listener.ts';
import { createRedisArtifactStore } from '../../src/runtime/artifacts/redis-artifact-store.ts';
import type { ArtifactStore } from '../../src/runtime/artifacts/artifact-store.ts';
import { createFakeWwebjs, type FakeWwebjs } from '../fakes/fake-wwebjs.ts';
import { waitFor } from '../support/wait-for.ts';

/** An intake that records what it took; `failNext` makes the next takes reject. */
export interface RecordingIntake extends WhatsAppIntake {
  readonly events: WhatsAppEvent[];
  failNext: number;
  attempts: number;
}

/** Creates a recording intake that dedupes by message id, as the real one does at enqueue. */
export function recordingIntake(): RecordingIntake {
  const intake: RecordingIntake = {
    events: [],
    failNext: 0,
    attempts: 0,
    take(event) {
      intake.attempts += 1;
      if (intake.failNext > 0) {
        intake.failNext -= 1;
        return Promise.reject(new Error('Redis is not answering'));
      }
      const duplicate = intake.events.some((taken) => taken.messageId === event.messageId);
      if (!duplicate) intake.events.push(event);
      return Promise.resolve({ duplicate });
    },
  };
  return intake;
}

/** A listener running under its lease, and what the test looks at. */
export interface WebSession {
  readonly fake: FakeWwebjs;
  readonly intake: RecordingIntake;
  readonly artifacts: ArtifactStore;
  readonly links: LinkStateStore;
  readonly fence: Fence;
  readonly running: RunningListener;
  readonly printed: string[];
  /** Waits until the link state is `status` (of this holder); returns it. */
  linkState(status: LinkState['status']): Promise<LinkState>;
  /** Waits for the QR code and scans it; resolves once ready. */
  link(): Promise<void>;
}

/** Options of {@link useWebSession}'s `start`. */
export interface StartOptions {
  readonly groups?: WebGroupPolicy;
  readonly fake?: FakeWwebjs;
  readonly sessionDir?: string;
  readonly extra?: Partial<WebListenerOptions>;
}

/** Gives tests `start(redis, prefix, options)`; every session started is stopped after the test. */
export function useWebSession(): (redis: Redis, prefix: string, options?: StartOptions) => Promise<WebSession> {
  const started: { running: RunningListener; release: () => Promise<boolean> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map(async ({ running, release }) => {
      await running.stop();
      await release();
    }));
  });
  return async (redis, prefix, options = {}) => {
    const fake = options.fake ?? createFakeWwebjs();
    const intake = recordingIntake();
    const artifacts = createRedisArtifactStore({ redis, prefix });
    const links = createLinkStateStore({ redis, prefix });
    const lease = createLease({ redis, key: `${prefix}:lease:whatsapp:web-session`, ttlMs: 5000 });
    const fence = await lease.acquire();
    const printed: string[] = [];
    const listener = createWebListener({
      factory: fake.factory,
      env: { mode: 'web', sessionDir: options.sessionDir, chromiumPath: 'chromium' },
      redis,
      prefix,
      intake,
      artifacts,
      logger: pino({ level: 'silent' }),
      clock: () => new Date(),
      groups: options.groups ?? 'mentions',
      backoff: { baseDelayMs: 50, maxDelayMs: 200 },
      takeRetry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 40 },
      printQr: (qr) => {
        printed.push(qr);
        return Promise.resolve();
      },
      ...options.extra,
    });
    const running = await listener.start(fence);
    started.push({ running, release: () => lease.release() });
    const linkState = async (status: LinkState['status']): Promise<LinkState> => {
      let found: LinkState | undefined;
      await waitFor(async () => {
        found = await links.read();
        return found?.status === status;
      }, `the link state ${status}`);
      if (found === undefined) throw new Error('unreachable');
      return found;
    };
    return {
      fake,
      intake,
      artifacts,
      links,
      fence,
      running,
      printed,
      linkState,
      async link() {
        await linkState('waiting-for-qr');
        await fake.latest().scan();
        await linkState('ready');
      },
    };
  };
}
