/**
 * One authenticated Slack payload taken in, whichever way it came (a signed request at
 * `/slack/events` or a Socket Mode envelope): read it, keep the files shared with a message,
 * normalise, enqueue, and remember the thread the bot is now in. The caller answers Slack only
 * after this settled: a rejection (the enqueue failed) means Slack must deliver it again. A
 * redelivered `event_id` or click is the same injection and is dropped at enqueue; an event the
 * normaliser cannot read is ignored (logged), never retried.
 */
import type { Logger } from 'pino';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { Injection } from '../../src/runtime/injection.ts';
import { readSlackJson, readSlackPayload, type ReadContext, type SlackIntent } from './read-payload.ts';
import type { SlackSharedFile } from './slack-event.ts';
import type { SlackStore } from './slack-store.ts';

/** Options of {@link createSlackIntake}. */
export interface SlackIntakeOptions {
  /** The bot's own user id, from `auth.test` (resolved once, lazily). */
  readonly botUserId: () => Promise<string>;
  readonly store: Pick<SlackStore, 'inThread' | 'joinThread'>;
  /** Keeps a message's files; answers the lines to add to its text. Default: each named as not kept. */
  readonly keepFiles?: (files: readonly SlackSharedFile[]) => Promise<readonly string[]>;
  readonly normalise: (event: unknown) => Injection;
  readonly enqueue: (injection: Injection) => Promise<{ readonly duplicate: boolean }>;
  readonly logger: Pick<Logger, 'info'>;
  readonly clock: () => Date;
}

/** What became of a payload. */
export type SlackIntakeOutcome =
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'challenge'; readonly challenge: string }
  | { readonly kind: 'ignored'; readonly reason: string }
  | { readonly kind: 'taken'; readonly injectionId: string; readonly duplicate: boolean };

/** A payload as it came: a verified HTTP body, or the (parsed) `payload` of a Socket Mode envelope. */
export type SlackPayloadInput = { readonly body: string; readonly contentType: string } | { readonly envelope: unknown };

/** Takes one payload; `log` is added to the log lines (how it came, a retry number). */
export type SlackIntake = (input: SlackPayloadInput, log: Readonly<Record<string, unknown>>) => Promise<SlackIntakeOutcome>;

function read(input: SlackPayloadInput, context: ReadContext): Promise<SlackIntent | undefined> {
  return 'envelope' in input ? readSlackJson(input.envelope, context) : readSlackPayload(input.body, input.contentType, context);
}

const unkept = (files: readonly SlackSharedFile[]): Promise<string[]> => Promise.resolve(files.map((file) => `(The file ${file.name} shared in Slack was not kept.)`));

/**
 * The injection of `event`, or why it has none. An event the normaliser refuses (`channel.invalid`)
 * is ignored, not retried: Slack would deliver the same unreadable event again and again.
 */
function injectionOf(normalise: SlackIntakeOptions['normalise'], event: unknown): { readonly injection: Injection } | { readonly reason: string } {
  try {
    return { injection: normalise(event) };
  } catch (error) {
    if (error instanceof SwitchboardError && error.code === 'channel.invalid') return { reason: `an event that cannot be read: ${error.message}` };
    throw error;
  }
}

/** Creates the intake the HTTP route and the Socket Mode listener share. */
export function createSlackIntake(options: SlackIntakeOptions): SlackIntake {
  const keepFiles = options.keepFiles ?? unkept;
  return async (input, log) => {
    const context = { botUserId: await options.botUserId(), botInThread: options.store.inThread, now: options.clock() };
    const intent = await read(input, context);
    if (intent === undefined) return { kind: 'unreadable' };
    if (intent.kind === 'challenge') return intent;
    const ignore = (reason: string): SlackIntakeOutcome => {
      options.logger.info({ ...log, channel: 'slack', reason }, 'slack: ignored');
      return { kind: 'ignored', reason };
    };
    if (intent.kind === 'ignored') return ignore(intent.reason);
    const event = { ...intent.event, ...('envelope' in input ? { via: 'socket' as const } : {}) };
    // Checked before its files are kept: an event that starts nothing keeps nothing.
    const checked = injectionOf(options.normalise, event);
    if ('reason' in checked) return ignore(checked.reason);
    const injection =
      intent.kind === 'message' && intent.files.length > 0
        ? options.normalise({ ...event, notes: [...intent.event.notes, ...(await keepFiles(intent.files))] })
        : checked.injection;
    const { duplicate } = await options.enqueue(injection);
    // A DM is the bot's whole: only channel threads need remembering, for the replies that follow.
    if (intent.kind === 'message' && !intent.dm) await options.store.joinThread(intent.event.teamId, intent.event.channel, intent.event.threadTs ?? intent.event.ts);
    options.logger.info({ ...log, channel: 'slack', injection: injection.id, duplicate }, 'slack: taken in');
    return { kind: 'taken', injectionId: injection.id, duplicate };
  };
}
