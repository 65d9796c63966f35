/**
 * The service speaking first: the `notify` tool (an actor messages a known person on their
 * channel) and `schedules:` (a turn at each cron tick, answered to the named recipient).
 */
import type { ChannelModule } from '../channels/channel.ts';
import { createScheduler, type Scheduler } from '../queues/schedule-queue.ts';
import type { RedisConnectionInput } from '../queues/redis-connections.ts';
import type { SwitchboardEnv } from '../src/config/env-types.ts';
import type { ToolRegistry } from '../src/protocol/tools/tool-registry.ts';
import type { BuiltinToolsContext } from '../src/runtime/app/load-app.ts';
import type { LoadedApp } from '../src/runtime/app/app-types.ts';
import type { Injection } from '../src/runtime/injection.ts';
import { createNotifyTool } from '../src/runtime/proactive/notify-tool.ts';
import { createScheduleTicks } from '../src/runtime/proactive/schedule-ticks.ts';
import type { WiredChannels } from './channel-wiring.ts';
import type { Logger } from 'pino';

/** The ids of the channels the environment turns on. */
export function enabledChannelIds(modules: readonly ChannelModule[], env: SwitchboardEnv): string[] {
  return modules.filter((module) => module.enabled(env)).map((module) => module.id);
}

/**
 * The `registerBuiltins` of `loadApp`: registers `notify`, which needs approval when
 * `switchboard.yaml` lists it under `approvals`. It sends through `channels()`, known once the
 * channels are wired (before any turn runs).
 */
export function registerNotify(enabledChannels: readonly string[], channels: () => WiredChannels | undefined) {
  return (registry: ToolRegistry, app: BuiltinToolsContext): void => {
    registry.register(
      createNotifyTool({
        people: app.people,
        enabledChannels,
        requiresApproval: app.approvalTools.has('notify'),
        send: async (destination, text, idempotencyKey) => {
          const sent = await channels()?.send(destination, { type: 'notice', id: idempotencyKey, text }, idempotencyKey);
          if (sent !== true) throw new Error(`The ${destination.channel} channel is not running here.`);
        },
      }),
    );
  };
}

/** Options of {@link createAppScheduler}. */
export interface AppSchedulerOptions {
  readonly app: LoadedApp;
  readonly enabledChannels: readonly string[];
  readonly tenantId: string;
  readonly connection: RedisConnectionInput;
  readonly prefix: string;
  readonly logger: Logger;
  readonly enqueue: (injection: Injection) => Promise<unknown>;
}

/** The scheduler of the app's `schedules:`; each tick enqueues one turn (deduplicated by tick). */
export function createAppScheduler(options: AppSchedulerOptions): Scheduler {
  const { app, logger } = options;
  return createScheduler({
    connection: options.connection,
    prefix: options.prefix,
    schedules: app.schedules ?? [],
    onTick: createScheduleTicks({ people: app.people, enabledChannels: options.enabledChannels, tenantId: options.tenantId, enqueue: options.enqueue }),
    onError: (error) => { logger.error({ err: error }, 'schedule'); },
    onSkip: (schedule, firedAt, lateByMs) => { logger.warn({ schedule: schedule.id, firedAt, lateByMs }, 'schedule tick skipped: too late'); },
  });
}
