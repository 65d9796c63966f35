/**
 * The Slack Web API client of the channel: the real `@slack/web-api` client, its base URL from
 * `SLACK_API_URL`, with its own retries off — a 429 is handed to the outbound queue with its
 * `Retry-After`, which retries without holding a worker.
 */
import { WebClient } from '@slack/web-api';
import type { SlackEnv } from '../../src/config/env-types.ts';

/** Creates the client. */
export function createSlackClient(slack: Pick<SlackEnv, 'botToken' | 'apiUrl'>): WebClient {
  return new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 10_000,
  });
}
