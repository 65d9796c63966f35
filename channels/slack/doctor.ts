/** `switchboard doctor` checks of the Slack channel: `auth.test` with the bot token. */
import type { DoctorCheck } from '../channel.ts';
import type { SlackEnv } from '../../src/config/env-types.ts';
import { createSlackClient } from './slack-client.ts';

/** Calls `auth.test` and reports the bot user and the team. */
export async function slackDoctor(slack: SlackEnv | undefined): Promise<readonly DoctorCheck[]> {
  if (slack === undefined) return [{ name: 'channel slack', status: 'off', detail: 'SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET unset' }];
  try {
    const auth = await createSlackClient(slack).auth.test();
    const mode = slack.appToken === undefined ? 'HTTP events at /slack/events' : 'Socket Mode with SLACK_APP_TOKEN (one connection, held by one worker process), and signed HTTP events at /slack/events';
    return [{ name: 'slack', status: 'ok', detail: `bot ${auth.user ?? '?'} (${auth.user_id ?? '?'}) in team ${auth.team ?? '?'} (${auth.team_id ?? '?'}); ${mode}` }];
  } catch (error) {
    const code = (error as { data?: { error?: unknown } }).data?.error;
    return [{ name: 'slack', status: 'fail', detail: `auth.test at ${slack.apiUrl}: ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}` }];
  }
}
