/**
 * The Slack Web API client of the channel: the real `@slack/web-api` client, its base URL from
 * `SLACK_API_URL`, with its own retries off — a 429 is handed to the outbound queue with its
 * `Retry-After`, which retries without holding a worker.
 */
import { WebClient } from '@slack/web-api';
import type { SlackEnv } from '../../src/config/env-types.ts';

/**
 * Creates the client. `fetch` is how it calls Slack: the adaptor passes its keep-alive one
 * (`channels/kit/keep-alive-fetch.ts`); default the global `fetch`.
 */
export function createSlackClient(slack: Pick<SlackEnv, 'botToken' | 'apiUrl'>, fetch?: typeof globalThis.fetch): WebClient {
  return new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    ...(fetch === undefined ? {} : { fetch }),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 10_000,
  });
}
