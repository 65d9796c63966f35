/**
 * `POST /slack/events`, the Events API and interactivity in one route: verify (signature and
 * timestamp), answer `url_verification`, take a message or a button press, normalise, enqueue and
 * only then answer 200 — within Slack's three seconds, since the work is on the queues. A retry or
 * a redelivered `event_id` is the same injection and is dropped at enqueue; a failed enqueue is a
 * 503 so Slack retries.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { sendJson, type Route } from '../../src/runtime/http/router.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { readSlackPayload, type SlackIntent } from './read-payload.ts';
import type { SlackStore } from './slack-store.ts';
import { readSlackRequest } from './verify.ts';

/** Options of {@link createSlackRoutes}. */
export interface SlackRoutesOptions {
  readonly signingSecret: string;
  /** The bot's own user id, from `auth.test` (resolved once, lazily). */
  readonly botUserId: () => Promise<string>;
  readonly store: Pick<SlackStore, 'inThread' | 'joinThread'>;
  readonly normalise: (event: unknown) => Injection;
  readonly enqueue: (injection: Injection) => Promise<{ readonly duplicate: boolean }>;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  readonly clock: () => Date;
}

async function take(intent: Extract<SlackIntent, { kind: 'message' | 'click' }>, options: SlackRoutesOptions, res: ServerResponse): Promise<void> {
  const injection = options.normalise(intent.event);
  try {
    const { duplicate } = await options.enqueue(injection);
    if (intent.kind === 'message') await options.store.joinThread(intent.event.teamId, intent.event.channel, intent.event.threadTs ?? intent.event.ts);
    options.logger.info({ channel: 'slack', injection: injection.id, duplicate }, 'slack: taken in');
  } catch (error) {
    options.logger.warn({ err: error, channel: 'slack', injection: injection.id }, 'slack: not enqueued; Slack will retry');
    res.setHeader('retry-after', '2');
    sendJson(res, 503, { error: { code: 'queue.closed', message: 'Not accepted; try again.' } });
    return;
  }
  res.statusCode = 200;
  res.end();
}

/** The Slack route. */
export function createSlackRoutes(options: SlackRoutesOptions): Route[] {
  return [{
    method: 'POST',
    pattern: '/slack/events',
    async handler({ req, res }) {
      const now = options.clock();
      const reading = await readSlackRequest(req, options.signingSecret, now.getTime());
      if (!reading.ok) {
        options.logger.warn({ channel: 'slack', status: reading.status, reason: reading.reason }, 'slack: request refused');
        sendJson(res, reading.status, { error: { code: 'http.unauthorized', message: reading.reason } });
        return;
      }
      const context = { botUserId: await options.botUserId(), botInThread: options.store.inThread, now };
      const intent = await readSlackPayload(reading.body, req.headers['content-type'] ?? '', context);
      if (intent === undefined) {
        sendJson(res, 400, { error: { code: 'http.bad_request', message: 'Not a Slack event or interaction.' } });
        return;
      }
      if (intent.kind === 'challenge') {
        sendJson(res, 200, { challenge: intent.challenge });
        return;
      }
      if (intent.kind === 'ignored') {
        options.logger.info({ channel: 'slack', reason: intent.reason, retry: reading.retryNum }, 'slack: ignored');
        res.statusCode = 200;
        res.end();
        return;
      }
      await take(intent, options, res);
    },
  }];
}
