/**
 * `POST /slack/events`, the Events API and interactivity in one route: verify (signature and
 * timestamp), then the shared intake (`intake.ts`): answer `url_verification`, take a message or a
 * button press, enqueue and only then answer 200 — within Slack's three seconds, since the work is
 * on the queues. A failed enqueue is a 503 so Slack retries.
 */
import type { Logger } from 'pino';
import { asRequestError, sendJson, type Route } from '../../src/runtime/http/router.ts';
import { createSlackIntake, type SlackIntakeOptions, type SlackIntakeOutcome } from './intake.ts';
import { readSlackRequest } from './verify.ts';
import { REDIS_RETRY_AFTER_SECONDS } from '../../src/runtime/redis/redis-unavailable.ts';

/** Options of {@link createSlackRoutes}: the intake's (the same as the Socket Mode listener's) and the signing secret. */
export interface SlackRoutesOptions extends SlackIntakeOptions {
  readonly signingSecret: string;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

/** The Slack route. */
export function createSlackRoutes(options: SlackRoutesOptions): Route[] {
  const intake = createSlackIntake(options);
  return [{
    method: 'POST',
    pattern: '/slack/events',
    async handler({ req, res }) {
      const reading = await readSlackRequest(req, options.signingSecret, options.clock().getTime());
      if (!reading.ok) {
        options.logger.warn({ channel: 'slack', status: reading.status, reason: reading.reason }, 'slack: request refused');
        sendJson(res, reading.status, { error: { code: 'http.unauthorized', message: reading.reason } });
        return;
      }
      let outcome: SlackIntakeOutcome;
      try {
        outcome = await intake({ body: reading.body, contentType: req.headers['content-type'] ?? '' }, { via: 'http', retry: reading.retryNum });
      } catch (error) {
        options.logger.warn({ err: error, channel: 'slack' }, 'slack: not enqueued; Slack will retry');
        res.setHeader('retry-after', String(REDIS_RETRY_AFTER_SECONDS));
        sendJson(res, 503, { error: { code: asRequestError(error).code, message: 'Not accepted; try again.' } });
        return;
      }
      if (outcome.kind === 'unreadable') sendJson(res, 400, { error: { code: 'http.bad_request', message: 'Not a Slack event or interaction.' } });
      else if (outcome.kind === 'challenge') sendJson(res, 200, { challenge: outcome.challenge });
      else {
        res.statusCode = 200;
        res.end();
      }
    },
  }];
}
