/**
 * The Slack channel: signed HTTP events and interactivity at `/slack/events`, and Socket Mode too
 * when `SLACK_APP_TOKEN` is set (one connection per app, under a lease), both into one intake that
 * keeps shared files as artifacts; answers in the thread through the outbound queue, the assistant
 * status while a turn works, approvals as Block Kit cards updated in place. On when
 * `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET` are set.
 */
import type { ChannelModule } from '../channel.ts';

/** The Slack channel module. */
export const slackChannel: ChannelModule = {
  id: 'slack',
  envVariables: ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL'],
  enabled: (env) => env.slack !== undefined,
  // The adaptor and its SDKs load only when the channel is on (see channels/registry.ts).
  create: async (context) => (await import('./adaptor.ts')).createSlackAdaptor(context),
  doctor: async (env) => (await import('./doctor.ts')).slackDoctor(env.slack),
};
