/**
 * Switchboard as the channel benches run it: one process of role `all`, the instant model
 * (bench/instant-model.ts), the channel bench app (`bench/paths/app`: every channel open to
 * strangers, no budgets), no logs, and only the channels a measurement names.
 */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { ChannelModule } from '../../channels/channel.ts';
import { loadEnv } from '../../src/config/env.ts';
import { startService, type Service } from '../../service/create-service.ts';
import { instantModel } from '../instant-model.ts';

const appDir = fileURLToPath(new URL('./app/', import.meta.url));

/** How one bench switchboard is started. */
export interface ChannelServiceConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  /** The channel variables (`SLACK_BOT_TOKEN`, `TWILIO_API_URL`, …) on top of the bench's own. */
  readonly variables: Readonly<Record<string, string>>;
  readonly channels: readonly ChannelModule[];
  /** The app folder. Default the channel bench app (`bench/paths/app`). */
  readonly appDir?: string;
}

/** Starts switchboard (`role: 'all'`) in this process on a free port. */
export async function startChannelService(config: ChannelServiceConfig): Promise<Service> {
  const { redisUrl, prefix, variables, channels } = config;
  const app = config.appDir ?? appDir;
  const env = loadEnv({ SWITCHBOARD_APP: app, LOG_LEVEL: 'silent', REDIS_URL: redisUrl, ...variables }, { appDir: app });
  return startService({ env, role: 'all', redisUrl, logger: pino({ level: 'silent' }), prefix, port: 0, model: instantModel, channels });
}

/**
 * The same channel module with its sender's rate limits removed (`rateLimit` for the whole channel,
 * `destinationRateLimit` per destination, `methodRateLimits` per provider method): the adaptor, its
 * routes and its `send` unchanged. A deployment would raise them in `switchboard.yaml`
 * (`sendLimits`); a bench removes them outright, and says so where it prints figures measured
 * this way.
 */
export function withoutSendLimits(module: ChannelModule): ChannelModule {
  return {
    ...module,
    create: async (context) => {
      const adaptor = await module.create(context);
      const { rateLimit: _channelLimit, destinationRateLimit: _destinationLimit, methodRateLimits: _methodLimits, ...sender } = adaptor.sender;
      return { ...adaptor, sender };
    },
  };
}
