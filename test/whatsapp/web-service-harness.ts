/**
 * A running switchboard with the WhatsApp channel in web mode for one test file: the example app,
 * the fake model answering with the file's script, the fake whatsapp-web.js (one fake shared by
 * every process, so the clients it made are counted across them) and one process of role `all`;
 * more processes on the same Redis and prefix on request. Each process's WhatsApp sender is
 * wrapped to record which process sent what, and can be held to steer outbound jobs to another
 * process. Everything is started before the file's tests and stopped after them.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { ChannelModule } from '../../channels/channel.ts';
import { webChannel } from '../../channels/web/index.ts';
import { createWhatsAppChannel } from '../../channels/whatsapp/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service, type ServiceRole } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic, FakeScript } from '../fakes/fake-anthropic-types.ts';
import { createFakeWwebjs, type FakeWwebjs } from '../fakes/fake-wwebjs.ts';
import { openExampleApp } from '../support/open-example-app.ts';
import { uniquePrefix } from '../support/redis.ts';

/** Options of {@link useWhatsAppWebSwitchboard}. */
export interface WhatsAppWebHarnessOptions {
  readonly redisUrl: () => string;
  readonly script: FakeScript;
  /** `CHROMIUM_PATH`. Default unset (`chromium`). */
  readonly chromiumPath?: string;
  /** Turns each process runs at once (`turnConcurrency`). Default the service's. */
  readonly turnConcurrency?: number;
}

/** One delivery a process's WhatsApp sender sent. */
export interface RecordedSend {
  /** Index of the process in {@link WhatsAppWebHarness.services}. */
  readonly process: number;
  readonly idempotencyKey: string;
  readonly providerMessageId: string | undefined;
}

/** What a test file gets. */
export interface WhatsAppWebHarness {
  readonly prefix: string;
  readonly fake: FakeAnthropic;
  readonly wwebjs: FakeWwebjs;
  /** A command connection to the service's Redis. */
  readonly redis: Redis;
  /** The processes started, the first one (role `all`) first. */
  readonly services: readonly Service[];
  /** `<first process>`'s base URL. */
  readonly url: string;
  /** Every delivery the processes' WhatsApp senders sent, in order. */
  readonly sends: readonly RecordedSend[];
  /** Holds the WhatsApp sends of process `index` (they wait) until the returned function is called. */
  hold(index: number): () => void;
  /** Starts another process of the service (same Redis, prefix and fake), closed after the file. */
  startProcess(role: ServiceRole): Promise<Service>;
}

/** The WhatsApp channel with the fake client, its sender recording and holdable as process `index`. */
function recordingChannel(wwebjs: FakeWwebjs, index: number, sends: RecordedSend[], holds: Map<number, Promise<void>>): ChannelModule {
  const inner = createWhatsAppChannel({ webClient: wwebjs.factory, printQr: () => Promise.resolve() });
  return {
    ...inner,
    create: async (context) => {
      const adaptor = await inner.create(context);
      // Without the channel's one-a-second pace, each turn sends its answer itself (no queue hop),
      // so the process that sent it is the process that ran the turn.
      const { rateLimit: _pace, ...sender } = adaptor.sender;
      return {
        ...adaptor,
        sender: {
          ...sender,
          async send(delivery) {
            await holds.get(index);
            const receipt = await adaptor.sender.send(delivery);
            sends.push({ process: index, idempotencyKey: delivery.idempotencyKey, providerMessageId: receipt.providerMessageId });
            return receipt;
          },
        },
      };
    },
  };
}

/** Starts everything before the file's tests and stops it after. */
export function useWhatsAppWebSwitchboard(options: WhatsAppWebHarnessOptions): () => WhatsAppWebHarness {
  let harness: WhatsAppWebHarness | undefined;
  const services: Service[] = [];
  const sends: RecordedSend[] = [];
  const holds = new Map<number, Promise<void>>();
  const prefix = uniquePrefix('whatsapp-web');
  const wwebjs = createFakeWwebjs();
  let opened: string | undefined;

  beforeAll(async () => {
    const fake = await startFakeAnthropic();
    fake.respondWith(options.script);
    const variables = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', WHATSAPP_MODE: 'web' };
    // Strangers write to this linked number: a copy of the example app that lets anyone in (web mode's default is allowlist).
    opened = openExampleApp('switchboard-wa-web-', ['whatsapp']);
    const env = loadEnv({ ...variables, ...(options.chromiumPath === undefined ? {} : { CHROMIUM_PATH: options.chromiumPath }) }, { appDir: opened });
    const startProcess = async (role: ServiceRole): Promise<Service> => {
      const channels = [webChannel, recordingChannel(wwebjs, services.length, sends, holds)];
      const service = await startService({ env, role, redisUrl: options.redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, channels, ...(options.turnConcurrency === undefined ? {} : { turnConcurrency: options.turnConcurrency }) });
      services.push(service);
      return service;
    };
    const first = await startProcess('all');
    harness = {
      prefix,
      fake,
      wwebjs,
      redis: new Redis(options.redisUrl()),
      services,
      url: first.url ?? '',
      sends,
      hold(index) {
        let release = (): void => undefined;
        holds.set(index, new Promise<void>((resolve) => { release = resolve; }));
        return () => {
          holds.delete(index);
          release();
        };
      },
      startProcess,
    };
  });

  afterAll(async () => {
    // The newest first: a later process would otherwise take the session over as the first one stops.
    for (const service of [...services].reverse()) await service.close();
    await harness?.redis.quit();
    await harness?.fake.close();
    if (opened !== undefined) rmSync(opened, { recursive: true, force: true });
  });

  return () => {
    if (harness === undefined) throw new Error('The WhatsApp Web harness is used before its beforeAll ran.');
    return harness;
  };
}
