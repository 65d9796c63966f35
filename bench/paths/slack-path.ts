/**
 * The Slack path: a signed Events API delivery of a DM (`message.im`) to `POST /slack/events`, to
 * the `chat.postMessage` call on the fake Slack Web API. The sender's rate limits stay as shipped
 * (50 calls a second, three per three seconds per DM): each top-level DM message is a conversation
 * of its own whatever DM it is in, so the messages rotate over {@link DMS} DMs (each gets one every
 * 25 s at 8 msg/s), far under both.
 */
import { slackChannel } from '../../channels/slack/index.ts';
import { startFakeSlack } from '../../test/fakes/fake-slack.ts';
import { dmMessage, eventCallback, postSlackEvent } from '../../test/fakes/slack-requests.ts';
import { watchSlackAnswers } from '../peers/slack-answers.ts';
import { dmOf } from '../peers/slack-events.ts';
import type { ChannelPath } from './channel-path.ts';

const BOT_TOKEN = 'xoxb-bench-paths-token';
const SIGNING_SECRET = 'bench-paths-signing-secret';
/** DMs the messages rotate over. */
const DMS = 200;

/** The Slack path. */
export const slackPath: ChannelPath = {
  name: 'Slack (Events API)',
  label: 'slack',
  note: 'Slack: provider calls are the Web API calls the fake Slack received (any method); sender limits as shipped, DMs rotated to stay under them',
  async start(context) {
    const slack = await startFakeSlack({ botToken: BOT_TOKEN, tsFrom: 'clock' });
    const answers = watchSlackAnswers(slack.url);
    const service = await context.startService({ SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.url }, [slackChannel]);
    const url = `${service.url ?? ''}/slack/events`;
    let sent = 0;
    return {
      async send(key) {
        const { channel, user } = dmOf(sent % DMS);
        sent += 1;
        const answer = await postSlackEvent({ url, signingSecret: SIGNING_SECRET, body: eventCallback(dmMessage({ user, channel, text: key })) });
        if (answer.status !== 200) throw new Error(`the Slack event of ${key} was answered ${String(answer.status)}: ${answer.body}`);
      },
      listen(next) {
        answers.listen((key) => { next(key); });
      },
      providerCalls: () => answers.calls(),
      async close() {
        await service.close();
        answers.stop();
        await slack.close();
      },
    };
  },
};
