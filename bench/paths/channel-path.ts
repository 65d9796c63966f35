/**
 * One channel path of `npm run bench -- --paths`, from the provider's webhook (or mailbox) to the
 * provider's API call that carries the answer: how it starts its fakes and its switchboard, sends
 * one message, sees the answer, and counts the provider API calls.
 */
import type { Redis } from 'ioredis';
import type { ChannelModule } from '../../channels/channel.ts';
import type { Service } from '../../service/create-service.ts';

/** What a path gets to start with. */
export interface PathContext {
  /** The key prefix the service runs under. */
  readonly prefix: string;
  /** Starts the bench switchboard (see `service.ts`) with these channel variables and channels, and this app (default the channel bench app). */
  startService(variables: Readonly<Record<string, string>>, channels: readonly ChannelModule[], appDir?: string): Promise<Service>;
  /**
   * Connections to the bench's Redis that the bench opened before it began counting the service's
   * round trips, for a path that reads Redis itself (the web chat's event store): a command
   * connection and one for pub/sub. Do not close them.
   */
  readonly redis: Redis;
  readonly subscriber: Redis;
}

/** A path with its fakes and switchboard running. */
export interface RunningPath {
  /**
   * Sends message `key` as sender `index` (a sender of a pool the path rotates over) and resolves
   * once the provider's webhook (or the mailbox) accepted it.
   */
  send(key: string, index: number): Promise<void>;
  /** Routes the answers seen from now on: the key each answers. */
  listen(listener: (key: string) => void): void;
  /** Provider API calls received so far by the fake provider (`undefined`: the path has no provider). */
  providerCalls(): number | undefined;
  /** Stops the switchboard, then the fakes. */
  close(): Promise<void>;
}

/** A channel path. */
export interface ChannelPath {
  /** The table's name, e.g. `SMS (Twilio)`. */
  readonly name: string;
  /** Letters only: names the path's keys and key prefix. */
  readonly label: string;
  /** What counts as a provider API call, and how the path was set up (limits, senders), for the notes. */
  readonly note: string;
  /**
   * The path's own rate and counts, where a limit of the channel's sender leaves too few messages
   * a minute for the common ones (`undefined`: the common ones).
   */
  readonly load?: { readonly rate: number; readonly warmUp: number; readonly measured: number; readonly tail: number };
  start(context: PathContext): Promise<RunningPath>;
}

/**
 * The key an answer's text carries. Keys are `<label>x<n>` (letters, `x`, digits); the instant
 * model answers `re <the message as the model saw it>`, which for mail is wrapped as untrusted
 * content with the subject and body inside, so the key is looked for anywhere in the text.
 */
export function keyIn(text: string): string | undefined {
  return /\b([a-z]+x\d+)\b/.exec(text)?.[1];
}
