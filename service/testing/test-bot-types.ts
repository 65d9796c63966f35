/**
 * The shapes of `switchboard/testing`'s test bot: its options, what `send` and the decisions take,
 * and the bot itself (see `startTestBot` in `test-bot.ts`).
 */
import type { Destination } from '../../src/runtime/injection.ts';
import type { ScriptStep } from './scripted-model.ts';
import type { TestApproval, TestTurn } from './test-turn.ts';

/** Options of {@link startTestBot}. */
export interface TestBotOptions {
  /** The app folder (holding `switchboard.yaml`, `actors/`, `tools/`): a path, or a `file:` URL such as `new URL('..', import.meta.url)`. */
  readonly app: string | URL;
  /**
   * A Redis to use (`redis://…`), under a key prefix of its own. Default: a private `redis-server`
   * (from `PATH`) in a temporary folder, stopped and removed by {@link TestBot.close}.
   */
  readonly redisUrl?: string;
  /** The variables the app names (peers' `token: env:NAME`). Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The channel messages arrive on when a `send` names none. Default `web`. */
  readonly channel?: string;
}

/** Who writes a message, when not a person of `switchboard.yaml` named by id. */
export interface TestSender {
  /** The channel's address of the sender (an email address, an E.164 number, …). */
  readonly address: string;
  /** The person it belongs to, if any. */
  readonly personId?: string;
  /** Whether the channel verified it. Default true. */
  readonly verified?: boolean;
}

/** Options of {@link TestBot.send}. */
export interface SendOptions {
  /** The model's answers, one step per model call the turn makes (see `callTool`, `respond`, `answer`). */
  readonly model: readonly ScriptStep[];
  /**
   * Who writes: a person id of `switchboard.yaml` (verified, with their address on the channel when
   * they have one), or a {@link TestSender}. Default: an unknown visitor, `visitor`.
   */
  readonly from?: string | TestSender;
  /** The channel. Default the bot's `channel` (`web`). */
  readonly channel?: string;
  /** The conversation, to hold several apart for one sender. Default: one per sender and channel. */
  readonly conversation?: string;
}

/** Options of {@link TestBot.approve} and {@link TestBot.deny}. */
export interface DecideOptions {
  /** The model's answers after the decision, when the turn goes on. Default none. */
  readonly model?: readonly ScriptStep[];
  /** The person who decides (an id of `switchboard.yaml`). Default: the requester when they may decide, else the first approver. */
  readonly by?: string;
  readonly reason?: string;
}

/** A message the `notify` tool sent, recorded instead of being delivered. */
export interface TestNotification {
  readonly destination: Destination;
  readonly text: string;
}

/** An app running in a test; see {@link startTestBot}. */
export interface TestBot {
  /** The loaded app: its name, actors and registered tools. */
  readonly app: { readonly name: string; readonly actors: readonly string[]; readonly tools: readonly string[] };
  /** Sends a message and runs the turn(s) it starts until they settle or wait; rejects when the script does not fit the turn. */
  send(text: string, options: SendOptions): Promise<TestTurn>;
  /** Grants a waiting approval as a person would on their channel, and runs the turn on. */
  approve(approval: TestApproval | string, options?: DecideOptions): Promise<TestTurn>;
  /** Denies a waiting approval, and runs the turn on. */
  deny(approval: TestApproval | string, options?: DecideOptions): Promise<TestTurn>;
  /** What `notify` sent so far, oldest first. */
  readonly notifications: readonly TestNotification[];
  /** Stops the private Redis (if any) and removes its folder. */
  close(): Promise<void>;
}
