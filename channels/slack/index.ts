/**
 * The Slack channel: signed HTTP events and interactivity at `/slack/events`, and Socket Mode too
 * when `SLACK_APP_TOKEN` is set (one connection per app, under a lease), both into one intake that
 * keeps shared files as artifacts; answers in the thread through the outbound queue, the assistant
 * status while a turn works, approvals as Block Kit cards updated in place. On when
 * `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET` are set.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { SlackEnv } from '../../src/config/env-types.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { slackApprovals } from './approvals.ts';
import { slackDoctor } from './doctor.ts';
import { createSlackRoutes } from './inbound.ts';
import { createSlackIntake } from './intake.ts';
import { normaliseSlackEvent } from './normalise.ts';
import { createSlackRender } from './render.ts';
import { createSlackSender } from './send.ts';
import { createSlackClient } from './slack-client.ts';
import { createSlackFileKeeper } from './slack-files.ts';
import { createSlackStore } from './slack-store.ts';
import { createSlackSocketListener } from './socket.ts';

function slackEnvOf(context: ChannelContext): SlackEnv {
  const { slack } = context.env;
  if (slack === undefined) throw new SwitchboardError('config.invalid', 'The Slack channel needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET.');
  return slack;
}

function createAdaptor(context: ChannelContext): ChannelAdaptor {
  const slack = slackEnvOf(context);
  const client = createSlackClient(slack);
  const store = createSlackStore({ redis: context.redis, prefix: `${context.prefix}:slack` });
  const normalise = (event: unknown) => normaliseSlackEvent(event, { people: context.app.people, tenantId: context.tenantId });
  let botUserId: Promise<string> | undefined;
  const whoAmI = (): Promise<string> => {
    botUserId ??= client.auth.test().then((auth) => auth.user_id ?? '').catch((error: unknown) => {
      botUserId = undefined;
      throw error;
    });
    return botUserId;
  };
  const keepFiles = createSlackFileKeeper({ botToken: slack.botToken, apiUrl: slack.apiUrl, artifacts: context.artifacts });
  const intakeOptions = { botUserId: whoAmI, store, keepFiles, normalise, enqueue: (injection: Injection) => context.enqueue(injection), logger: context.logger, clock: context.clock };
  const { appToken } = slack;
  return {
    id: 'slack',
    transport: 'streaming',
    outbound: 'queue',
    routes: createSlackRoutes({ ...intakeOptions, signingSecret: slack.signingSecret }),
    ...(appToken === undefined ? {} : { listener: createSlackSocketListener({ appToken, apiUrl: slack.apiUrl, intake: createSlackIntake(intakeOptions), logger: context.logger }) }),
    normalise,
    render: createSlackRender({ clock: context.clock }),
    sender: createSlackSender({ client, store }),
    approvals: slackApprovals,
    close: () => Promise.resolve(),
  };
}

/** The Slack channel module. */
export const slackChannel: ChannelModule = {
  id: 'slack',
  envVariables: ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL'],
  enabled: (env) => env.slack !== undefined,
  create: (context) => Promise.resolve(createAdaptor(context)),
  doctor: (env) => slackDoctor(env.slack),
};
