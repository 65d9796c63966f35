/**
 * The Slack adaptor: the Web API client, the signed Events API route, the optional Socket Mode
 * listener, the renderer and the sender. `index.ts` loads this file (and with it the Slack SDKs)
 * only when the channel is on.
 */
import type { ChannelAdaptor, ChannelContext } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { SlackEnv } from '../../src/config/env-types.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { slackApprovals } from './approvals.ts';
import { createSlackRoutes } from './inbound.ts';
import { createSlackIntake } from './intake.ts';
import { normaliseSlackEvent } from './normalise.ts';
import { createSlackRender } from './render.ts';
import { createSlackSender } from './send.ts';
import { createSlackClient } from './slack-client.ts';
import { createKeepAliveFetch } from '../kit/keep-alive-fetch.ts';
import { createSlackFileKeeper } from './slack-files.ts';
import { createSlackStore } from './slack-store.ts';
import { createSlackSocketListener } from './socket.ts';

function slackEnvOf(context: ChannelContext): SlackEnv {
  const { slack } = context.env;
  if (slack === undefined) throw new SwitchboardError('config.invalid', 'The Slack channel needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET.');
  return slack;
}

/** Creates the Slack adaptor from the environment and the service's context. */
export function createSlackAdaptor(context: ChannelContext): ChannelAdaptor {
  const slack = slackEnvOf(context);
  const transport = createKeepAliveFetch();
  const client = createSlackClient(slack, transport.fetch);
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
    close: () => {
      transport.close();
      return Promise.resolve();
    },
  };
}
