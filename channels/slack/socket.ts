/**
 * Slack Socket Mode, on when `SLACK_APP_TOKEN` is set: one WebSocket per app across every process
 * (the service's singleton lease), opened with `@slack/socket-mode`'s client (`apps.connections.open`
 * at `SLACK_API_URL` with the app token). An `events_api` or `interactive` envelope carries the
 * same JSON as a request to `/slack/events` and goes to the same intake; no signature to check,
 * the connection is authenticated by the app token. Each envelope is acked only after the intake
 * settled, so one whose enqueue failed is delivered again; a redelivery is dropped at enqueue.
 *
 * The client's own reconnection is off: it leaves a failed reconnect as an unhandled rejection.
 * Here a dropped socket (Slack asks for a new one every few hours) is reopened at once; when that
 * fails the listener ends (`closed`), and the lease runner backs off and starts it again.
 */
import { createHash } from 'node:crypto';
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger } from 'pino';
import type { ChannelListener, ListenerFence, RunningListener } from '../channel.ts';
import { abortable } from '../kit/lease/lease-clock.ts';
import type { SlackIntake } from './intake.ts';
import { slackSocketLogger } from './socket-logger.ts';

/** Options of {@link createSlackSocketListener}. */
export interface SlackSocketOptions {
  /** `SLACK_APP_TOKEN` (`xapp-…`). A secret: only its hash names the lease. */
  readonly appToken: string;
  /** `SLACK_API_URL`, ending with `/`. */
  readonly apiUrl: string;
  readonly intake: SlackIntake;
  readonly logger: Logger;
}

/** An envelope as the client's `slack_event` hands it over. */
interface SocketEnvelope {
  readonly type: string;
  readonly envelope_id: string;
  /** The envelope's `payload`. */
  readonly body: unknown;
  readonly retry_num?: number;
  ack(): Promise<void>;
}

/** Envelope types whose payload goes to the intake; others (slash commands) are acked and logged. */
const TAKEN = new Set(['events_api', 'interactive']);

async function onEnvelope(envelope: SocketEnvelope, intake: SlackIntake, fence: ListenerFence, logger: Logger): Promise<void> {
  const log = { via: 'socket', envelope: envelope.envelope_id, retry: envelope.retry_num };
  if (fence.signal.aborted) return; // not acked: Slack gives it to the lease's next holder
  if (TAKEN.has(envelope.type)) {
    try {
      await intake({ envelope: envelope.body }, log);
    } catch (error) {
      logger.warn({ err: error, ...log }, 'slack: not enqueued; not acked, so Slack delivers it again');
      return;
    }
  } else {
    logger.info({ ...log, type: envelope.type }, 'slack: envelope of a kind this service does not take; acked');
  }
  await envelope.ack();
}

/** The client rejects a connection closed before Slack's `hello` with nothing. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error('The Socket Mode connection closed before Slack said hello.', { cause: error });
}

/** Opens the connection and keeps it open (see the module comment) until `stop`. */
function keepOpen(client: SocketModeClient, logger: Logger): { readonly opened: Promise<void>; readonly closed: Promise<unknown>; stop(): Promise<void> } {
  let stopping = false;
  let connecting: Promise<void> | undefined;
  let end: (reason: unknown) => void = () => undefined;
  const closed = new Promise<unknown>((resolve) => { end = resolve; });
  const open = (): Promise<void> => {
    connecting = client.start().then(async () => {
      connecting = undefined;
      if (stopping) await client.disconnect(); // stopped while connecting
    });
    return connecting;
  };
  client.on('disconnected', () => {
    if (stopping || connecting !== undefined) return;
    logger.info('slack: socket closed; reconnecting');
    open().catch((error: unknown) => { end(asError(error)); });
  });
  return {
    opened: open(),
    closed,
    async stop() {
      stopping = true;
      await client.disconnect();
    },
  };
}

async function startSocket(options: SlackSocketOptions, fence: ListenerFence): Promise<RunningListener> {
  const logger = options.logger.child({ channel: 'slack', listener: 'socket', fence: fence.token });
  const client = new SocketModeClient({
    appToken: options.appToken,
    logger: slackSocketLogger(logger),
    autoReconnectEnabled: false,
    clientOptions: { slackApiUrl: options.apiUrl, retryConfig: { retries: 2 }, timeout: 10_000 },
  });
  client.on('slack_event', (envelope: SocketEnvelope) => {
    onEnvelope(envelope, options.intake, fence, logger).catch((error: unknown) => { logger.warn({ err: error, envelope: envelope.envelope_id }, 'slack: ack not sent'); });
  });
  const connection = keepOpen(client, logger);
  const stop = (): Promise<void> => connection.stop();
  fence.signal.addEventListener('abort', () => { stop().catch((error: unknown) => { logger.warn({ err: error }, 'slack: socket not closed'); }); }, { once: true });
  try {
    await abortable(connection.opened, fence.signal);
  } catch (error) {
    await stop();
    throw asError(error);
  }
  logger.info('slack: Socket Mode connected');
  return { stop, closed: connection.closed };
}

/** The lease name of an app token: the first 16 hex digits of its SHA-256. */
function fingerprint(appToken: string): string {
  return createHash('sha256').update(appToken).digest('hex').slice(0, 16);
}

/** Creates the singleton Socket Mode listener. */
export function createSlackSocketListener(options: SlackSocketOptions): ChannelListener {
  return {
    singletonKey: `socket:${fingerprint(options.appToken)}`,
    start(fence) {
      if (fence === undefined) throw new Error('The Slack Socket Mode listener runs only under its lease.');
      return startSocket(options, fence);
    },
  };
}
