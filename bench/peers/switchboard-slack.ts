/**
 * Switchboard as `npm run bench -- --peers` runs it beside the Chat SDK bot: one process of role
 * `all` with the Slack channel only (signed Events API requests at `/slack/events`, answers with
 * `chat.postMessage`, inline or through the outbound queue, to the fake Slack Web API), the instant model and
 * the channel bench app. The Slack sender's rate limits are removed (see {@link withoutSendLimits}):
 * as shipped, Slack's own per-method limits would set the rate.
 *
 * Run as `node bench/peers/switchboard-slack.ts '<json config>'` by the bench (see `child-side.ts`).
 */
import { slackChannel } from '../../channels/slack/index.ts';
import { startChannelService, withoutSendLimits } from '../paths/service.ts';
import { childConfig, serveParent } from './child-side.ts';

/** What the bench starts switchboard with. */
export interface SwitchboardSlackConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  /** `SLACK_API_URL`: the fake Slack's `…/api/`. */
  readonly slackApiUrl: string;
  readonly botToken: string;
  readonly signingSecret: string;
}

const config = childConfig() as SwitchboardSlackConfig;
const service = await startChannelService({
  redisUrl: config.redisUrl,
  prefix: config.prefix,
  variables: { SLACK_BOT_TOKEN: config.botToken, SLACK_SIGNING_SECRET: config.signingSecret, SLACK_API_URL: config.slackApiUrl },
  channels: [withoutSendLimits(slackChannel)],
});
serveParent(service.url ?? '', () => service.close());
