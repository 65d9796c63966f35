/**
 * A running switchboard with the Slack channel for one test file: the example app, the fake model
 * answering with the file's script, the fake Slack (Web API, file downloads, Socket Mode) and one
 * process of role `all`; more processes on the same Redis and prefix on request. Everything is
 * started before the file's tests and stopped after them.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { slackChannel } from '../../channels/slack/index.ts';
import { webChannel } from '../../channels/web/index.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service, type ServiceRole } from '../../service/create-service.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeAnthropic, FakeScript } from '../fakes/fake-anthropic-types.ts';
import { startFakeSlack } from '../fakes/fake-slack.ts';
import type { FakeSlack, FakeSlackOptions } from '../fakes/fake-slack-types.ts';
import { uniquePrefix } from '../support/redis.ts';

/** Options of {@link useSlackSwitchboard}. */
export interface SlackHarnessOptions {
  readonly redisUrl: () => string;
  readonly script: FakeScript;
  /** `SLACK_BOT_TOKEN`. */
  readonly botToken: string;
  /** `SLACK_SIGNING_SECRET`. */
  readonly signingSecret: string;
  /** `SLACK_APP_TOKEN`: Socket Mode. Default unset (HTTP events only). */
  readonly appToken?: string;
  /** More of the fake Slack's options. */
  readonly slack?: Omit<FakeSlackOptions, 'botToken' | 'appToken'>;
  /** The service's `signalDelayMs`. Default 0: statuses show at once, as the tests look for them. */
  readonly signalDelayMs?: number;
}

/** What a test file gets. */
export interface SlackHarness {
  readonly prefix: string;
  readonly fake: FakeAnthropic;
  readonly slack: FakeSlack;
  /** A command connection to the service's Redis. */
  readonly redis: Redis;
  /** The processes started, the first one (role `all`) first. */
  readonly services: readonly Service[];
  /** `<first process>/slack/events`. */
  readonly eventsUrl: string;
  /** Starts another process of the service (same Redis and prefix), closed after the file. */
  startProcess(role: ServiceRole): Promise<Service>;
}

/** Starts everything before the file's tests and stops it after. */
export function useSlackSwitchboard(options: SlackHarnessOptions): () => SlackHarness {
  let harness: SlackHarness | undefined;
  const services: Service[] = [];
  const prefix = uniquePrefix('slack');

  beforeAll(async () => {
    const fake = await startFakeAnthropic();
    fake.respondWith(options.script);
    const slack = await startFakeSlack({ ...options.slack, botToken: options.botToken, ...(options.appToken === undefined ? {} : { appToken: options.appToken }) });
    const variables = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, LOG_LEVEL: 'silent', SLACK_BOT_TOKEN: options.botToken, SLACK_SIGNING_SECRET: options.signingSecret, SLACK_API_URL: slack.url };
    const env = loadEnv({ ...variables, ...(options.appToken === undefined ? {} : { SLACK_APP_TOKEN: options.appToken }) }, { appDir: process.cwd() });
    const startProcess = async (role: ServiceRole): Promise<Service> => {
      const service = await startService({ env, role, redisUrl: options.redisUrl(), logger: pino({ level: 'silent' }), prefix, port: 0, sessionLockTtlMs: 5000, jobLockDurationMs: 5000, signalDelayMs: options.signalDelayMs ?? 0, channels: [webChannel, slackChannel] });
      services.push(service);
      return service;
    };
    const first = await startProcess('all');
    harness = { prefix, fake, slack, redis: new Redis(options.redisUrl()), services, eventsUrl: `${first.url ?? ''}/slack/events`, startProcess };
  });

  afterAll(async () => {
    for (const service of services) await service.close();
    await harness?.redis.quit();
    await harness?.slack.close();
    await harness?.fake.close();
  });

  return () => {
    if (harness === undefined) throw new Error('The Slack harness is used before its beforeAll ran.');
    return harness;
  };
}
