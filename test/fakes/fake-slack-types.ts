/**
 * Types of the fake Slack Web API ({@link ./fake-slack.ts}) and of the signed-request helpers and
 * payload builders ({@link ./slack-requests.ts}).
 */

/** A Block Kit block as the fake sees it: a `type`, maybe a `block_id`, and whatever else was sent. */
export interface SlackBlock {
  readonly type: string;
  readonly block_id?: string;
  readonly [field: string]: unknown;
}

/** A streaming chunk (`chat.startStream` / `appendStream` / `stopStream` `chunks`). */
export interface SlackChunk {
  /** `markdown_text`, `blocks`, `plan_update`, `task_update` … */
  readonly type: string;
  /** The text of a `markdown_text` chunk. */
  readonly text?: string;
  readonly [field: string]: unknown;
}

/** A person (or bot) `users.info` knows. Everything but `id` has a default. */
export interface FakeSlackUser {
  /** `U…` (or `W…`). */
  readonly id: string;
  /** Handle (`name`). Default: `user-<id in lower case>`. */
  readonly name?: string;
  /** Default: `Test User <id>`. */
  readonly realName?: string;
  /** `profile.email`. Default: none (as without the `users:read.email` scope). */
  readonly email?: string;
  /** IANA zone. Default `Europe/Berlin`. */
  readonly tz?: string;
  readonly isBot?: boolean;
  readonly deleted?: boolean;
}

/** A conversation `conversations.info` knows. Unlisted ids are made up from their prefix. */
export interface FakeSlackConversation {
  /** `C…` public channel, `G…` private channel, `D…` direct message. */
  readonly id: string;
  /** Channel name. Default: `fake-<id in lower case>` (none for a DM). */
  readonly name?: string;
  /** Default: `true` for `D…` ids. */
  readonly isIm?: boolean;
  /** Default: `true` for `G…` ids and DMs. */
  readonly isPrivate?: boolean;
  /** Whether the bot is in it. Default `true`. */
  readonly isMember?: boolean;
  /** The other person of a DM. Default `U0USER001`. */
  readonly user?: string;
}

/** Options of `startFakeSlack`. */
export interface FakeSlackOptions {
  /** The only token the fake accepts (`xoxb-…`), in `Authorization: Bearer …` or a `token` argument. */
  readonly botToken: string;
  /** Default `T0FAKE01`. */
  readonly teamId?: string;
  /** The bot's user id. Default `U0BOT001`. */
  readonly botUserId?: string;
  /** The bot's bot id (`bot_id` on its messages). Default `B0BOT001`. */
  readonly botId?: string;
  /** The app id (`app_id` on the bot's messages). Default `A0FAKE01`. */
  readonly appId?: string;
  /**
   * Sent in the `x-oauth-scopes` header of every authenticated answer, which the WebClient copies
   * to `response_metadata.scopes`. Default: a typical bot's scopes (`chat:write`, `im:history` …).
   */
  readonly scopes?: readonly string[];
  /** People `users.info` answers for; other `U…` / `W…` ids get made-up defaults. */
  readonly users?: readonly FakeSlackUser[];
  /** Conversations `conversations.info` answers for; other ids are made up from their prefix. */
  readonly conversations?: readonly FakeSlackConversation[];
  /**
   * What a file download without the bot token gets. `login-page` (default), as Slack does: a 302
   * to a sign-in page that answers 200 `text/html`, so a client that follows redirects and does not
   * check the content type saves HTML as the file. `unauthorized`: a plain 401.
   */
  readonly fileAuthFailure?: 'login-page' | 'unauthorized';
  /**
   * The app-level token (`xapp-…`) `apps.connections.open` takes, for Socket Mode. Default: none,
   * so it answers `invalid_auth` (`not_allowed_token_type` for a bot token).
   */
  readonly appToken?: string;
  /**
   * How message `ts` values are made: `sequence` (default) counts up from `1700000000.000100` in
   * steps of 100 µs; `clock` takes the current time (always rising), as Slack does, for code that
   * reads history from a time on (`oldest`).
   */
  readonly tsFrom?: 'sequence' | 'clock';
  /**
   * Which threads exist for `conversations.replies`: `people` (default) takes a thread the fake did
   * not post the parent of for a person's message (the events a test posts to the service are
   * not seen here), listed as a parent by `U0PERSON00`; `posted` knows only the fake's own posts,
   * and answers `thread_not_found` for any other thread.
   */
  readonly threadParents?: 'people' | 'posted';
}

/** An envelope the fake sends over Socket Mode (see `FakeSlack.pushEnvelope`). */
export interface FakeSlackEnvelope {
  /** `events_api`, `interactive`, `slash_commands` … */
  readonly type: string;
  /** What Slack would POST: an `event_callback` body, or an interactivity payload such as `block_actions`. */
  readonly payload: object;
  /** Default: a fresh id. A redelivery has a new one. */
  readonly envelopeId?: string;
  /** `events_api` only: 0 the first time, 1, 2, 3 on redeliveries. Default 0. */
  readonly retryAttempt?: number;
  /** `events_api` only, e.g. `timeout`. Default `''`. */
  readonly retryReason?: string;
  /** Default `false`. */
  readonly acceptsResponsePayload?: boolean;
}

/** One ack the client sent over Socket Mode. */
export interface FakeSlackAck {
  readonly envelopeId: string;
  /** The ack's `payload` (`{}` for a plain ack). */
  readonly payload: unknown;
  /** Epoch ms when it arrived. */
  readonly at: number;
}

/** Socket Mode connections since the start (or the last `reset`). */
export interface FakeSlackSockets {
  /** Open now. */
  readonly open: number;
  /** The most open at one time. */
  readonly peak: number;
  /** Opened in all. */
  readonly opened: number;
}

/** How a scripted failure answers (see `FakeSlack.failNext`). */
export type FakeSlackFailure =
  | {
      /** Slack's rate limit: HTTP 429, body `{ ok: false, error: 'ratelimited' }`. */
      readonly status: 429;
      /** The `Retry-After` header, in whole seconds; `null` sends no header. */
      readonly retryAfterSeconds: number | null;
    }
  | {
      /** An HTTP-level failure (500, 502, 503 …) with a short HTML body. */
      readonly status: 500 | 502 | 503 | 504;
      readonly body?: string;
    }
  | {
      /** A Web API error: HTTP 200, `{ ok: false, error }` (`channel_not_found`, `not_in_channel`, `fatal_error` …). */
      readonly error: string;
      /** Added to the body as `needed` (for `missing_scope`). */
      readonly needed?: string;
    }
  | {
      /** Drop the connection without answering. */
      readonly disconnect: true;
    };

/** One Web API call the fake answered, whatever the answer. */
export interface FakeSlackCall {
  /** `chat.postMessage`, `auth.test` … */
  readonly method: string;
  /**
   * The arguments as Slack reads them: form fields as strings (numbers and booleans arrive as
   * `'42'` / `'true'`), JSON-valued fields (`blocks`, `attachments`, `chunks`, `metadata`,
   * `loading_messages` …) parsed. The `token` argument is left out.
   */
  readonly args: Readonly<Record<string, unknown>>;
  /** The request body exactly as received. */
  readonly rawBody: string;
  /** The request `Content-Type`, or `undefined`. */
  readonly contentType: string | undefined;
  /** The token the call carried (header or argument), or `undefined`. */
  readonly token: string | undefined;
  /** HTTP status answered (`0` for a dropped connection). */
  readonly status: number;
  /** The `error` of an `ok: false` answer, else `undefined`. */
  readonly error: string | undefined;
  /** Epoch ms when it was received. */
  readonly at: number;
}

/** A message posted with `chat.postMessage`, as it is now (after any `chat.update`). */
export interface FakeSlackMessage {
  readonly channel: string;
  /** `1700000000.000100`, `1700000000.000200` … */
  readonly ts: string;
  readonly threadTs: string | undefined;
  readonly text: string | undefined;
  /** `markdown_text`, when that was sent instead of `text`. */
  readonly markdownText: string | undefined;
  /** Parsed from the JSON the client sent; `undefined` when none were sent. */
  readonly blocks: readonly SlackBlock[] | undefined;
  readonly attachments: readonly unknown[] | undefined;
  readonly metadata: unknown;
  /** `reply_broadcast` was `true`. */
  readonly replyBroadcast: boolean;
  /** How many times `chat.update` changed it. */
  readonly updateCount: number;
  /** Every argument of the `chat.postMessage` call (see {@link FakeSlackCall.args}). */
  readonly args: Readonly<Record<string, unknown>>;
  /** Epoch ms when it was posted. */
  readonly at: number;
}

/** What a `chat.update` or a `chat.postEphemeral` sent, and when. */
interface FakeSlackSent {
  readonly channel: string;
  readonly text: string | undefined;
  readonly blocks: readonly SlackBlock[] | undefined;
  /** Every argument of the call (see {@link FakeSlackCall.args}). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly at: number;
}

/** One successful `chat.update`. */
export interface FakeSlackUpdate extends FakeSlackSent {
  readonly ts: string;
}

/** One `chat.postEphemeral`. */
export interface FakeSlackEphemeral extends FakeSlackSent {
  /** Who alone sees it. */
  readonly user: string;
  /** The `message_ts` answered. */
  readonly messageTs: string;
  readonly threadTs: string | undefined;
}

/** One `assistant.threads.setStatus` (an empty `status` clears the indicator). */
export interface FakeSlackStatus {
  readonly channelId: string;
  readonly threadTs: string;
  readonly status: string;
  readonly loadingMessages: readonly string[] | undefined;
  readonly at: number;
  /** Set on the clearing Slack does itself when the app posts in the thread (no call was made). */
  readonly byPost?: true;
}

/** A message streamed with `chat.startStream` / `appendStream` / `stopStream`. */
export interface FakeSlackStream {
  readonly channel: string;
  /** The stream message's `ts` (answered by `chat.startStream`). */
  readonly ts: string;
  readonly threadTs: string;
  /** Everything streamed so far: `markdown_text` arguments and `markdown_text` chunks, in order. */
  readonly text: string;
  /** The text each call added (start, appends, stop), including empty ones. */
  readonly pieces: readonly string[];
  /** Every chunk received, in order. */
  readonly chunks: readonly SlackChunk[];
  /** `blocks` given to `chat.stopStream`. */
  readonly blocks: readonly SlackBlock[] | undefined;
  readonly recipientUserId: string | undefined;
  readonly recipientTeamId: string | undefined;
  /** `streaming` until `chat.stopStream`, then `completed`. */
  readonly state: 'streaming' | 'completed';
  /** Number of `chat.appendStream` calls. */
  readonly appendCount: number;
  readonly startedAt: number;
  readonly stoppedAt: number | undefined;
}

/** One request for a file's `url_private` / `url_private_download`. */
export interface FakeSlackDownload {
  readonly fileId: string;
  /** Whether it carried `Authorization: Bearer <botToken>`. */
  readonly authorized: boolean;
  /** HTTP status answered (200, 302, 401). */
  readonly status: number;
  readonly at: number;
}

/** Options of `FakeSlack.addFile`. */
export interface FakeSlackFileOptions {
  /** File name, e.g. `receipt.png`. */
  readonly name: string;
  /** e.g. `image/png`. */
  readonly mimetype: string;
  /** Default: `name`. */
  readonly title?: string;
  /** Who shared it. Default `U0USER001`. */
  readonly user?: string;
}

/** A file object as Slack puts it in `files` of a message event (`file_share`) or `files.info`. */
export interface SlackFile {
  /** `F…` */
  readonly id: string;
  readonly created: number;
  readonly timestamp: number;
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  /** `png`, `jpg`, `pdf`, `text` … */
  readonly filetype: string;
  readonly pretty_type: string;
  readonly user: string;
  readonly user_team: string;
  readonly editable: boolean;
  readonly size: number;
  readonly mode: 'hosted';
  readonly is_external: boolean;
  readonly external_type: string;
  readonly is_public: boolean;
  readonly public_url_shared: boolean;
  readonly display_as_bot: boolean;
  readonly username: string;
  /** Needs `Authorization: Bearer <bot token>`. */
  readonly url_private: string;
  /** Same bytes as `url_private`, as an attachment; needs the bot token too. */
  readonly url_private_download: string;
  readonly permalink: string;
  readonly permalink_public: string;
  readonly is_starred: boolean;
  readonly has_rich_preview: boolean;
  readonly file_access: string;
}

/** A running fake Slack Web API. */
export interface FakeSlack {
  /** In place of `https://slack.com/api/`: `http://127.0.0.1:<port>/api/`. Give it to `WebClient` as `slackApiUrl`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>` (file URLs live here, under `/files-pri/`). */
  readonly origin: string;
  readonly botToken: string;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  /** Posted messages as they are now, oldest first; only those in `channel` when given. */
  messages(channel?: string): readonly FakeSlackMessage[];
  /** Successful `chat.update` calls, oldest first. */
  updates(): readonly FakeSlackUpdate[];
  /** `chat.postEphemeral` calls, oldest first. */
  ephemerals(): readonly FakeSlackEphemeral[];
  /** `assistant.threads.setStatus` calls, oldest first; only those for `threadTs` when given. */
  statuses(threadTs?: string): readonly FakeSlackStatus[];
  /** Streamed messages, oldest first. */
  streams(): readonly FakeSlackStream[];
  /** Every Web API call, answered however, oldest first; only those of `method` when given. */
  calls(method?: string): readonly FakeSlackCall[];
  /** Every file download attempt, oldest first. */
  downloads(): readonly FakeSlackDownload[];
  /**
   * Answers the next `count` authenticated calls of `method` (`'*'`: of any method; those whose
   * arguments `match`, when given) with `failure`. Calls with a wrong token answer `invalid_auth`
   * and do not use up a failure. A failed call records nothing but the call.
   */
  failNext(method: string, count: number, failure: FakeSlackFailure, match?: (args: Readonly<Record<string, unknown>>) => boolean): void;
  /**
   * The next `count` calls of `method` (those whose arguments `match`, when given; arguments as in
   * {@link FakeSlackCall.args}) take effect (a post is stored and listed) but their answers are
   * held until {@link FakeSlack.releaseHeld}: a client that dies meanwhile never hears of them.
   */
  holdNext(method: string, count: number, match?: (args: Readonly<Record<string, unknown>>) => boolean): void;
  /** How many answers are held now. */
  heldCount(): number;
  /** Sends every held answer (to a client that may be gone). */
  releaseHeld(): void;
  /** Serves `bytes` at a new file's `url_private` / `url_private_download`; returns the file object. */
  addFile(bytes: Uint8Array | string, options: FakeSlackFileOptions): SlackFile;
  /** Sends `envelope` over the newest open Socket Mode connection; returns its `envelope_id`. Throws when none is open. */
  pushEnvelope(envelope: FakeSlackEnvelope): string;
  /** Socket Mode acks, oldest first. */
  acks(): readonly FakeSlackAck[];
  /** Socket Mode connection counts. */
  sockets(): FakeSlackSockets;
  /** Asks every open Socket Mode connection to reconnect (`disconnect`, `refresh_requested`), as Slack does every few hours. */
  refreshSockets(): void;
  /** Forgets calls, messages, updates, ephemerals, statuses, streams, files, downloads, scripted failures and acks. `ts` values keep increasing. */
  reset(): void;
  /** Stops the server, dropping open connections (Socket Mode ones too). */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// What Slack sends to the service

/** A `message` event (also `app_mention`, whose `type` differs). */
export interface SlackMessageEvent {
  readonly type: 'message' | 'app_mention';
  readonly subtype?: string;
  readonly user?: string;
  readonly text?: string;
  readonly ts: string;
  readonly channel: string;
  /** `im`, `channel`, `group`, `mpim`; absent on `app_mention`. */
  readonly channel_type?: string;
  readonly thread_ts?: string;
  readonly bot_id?: string;
  readonly event_ts: string;
  readonly files?: readonly SlackFile[];
  readonly blocks?: readonly SlackBlock[];
  readonly [field: string]: unknown;
}

/** An Events API `event_callback` envelope. */
export interface SlackEventCallback<E = SlackMessageEvent> {
  readonly type: 'event_callback';
  readonly token: string;
  readonly team_id: string;
  readonly api_app_id: string;
  readonly event: E;
  /** `Ev…`, the same on Slack's retries of one delivery. */
  readonly event_id: string;
  readonly event_time: number;
  readonly [field: string]: unknown;
}

/** The Events API URL check: answer 200 with the `challenge`. */
export interface SlackUrlVerification {
  readonly type: 'url_verification';
  readonly token: string;
  readonly challenge: string;
}

/** One element of `actions` of a `block_actions` payload. */
export interface SlackBlockAction {
  readonly action_id: string;
  readonly block_id: string;
  readonly type: string;
  readonly value?: string;
  readonly action_ts: string;
  readonly [field: string]: unknown;
}

/** An interactivity `block_actions` payload (the JSON inside the `payload` form field). */
export interface SlackBlockActionsPayload {
  readonly type: 'block_actions';
  readonly user: { readonly id: string; readonly team_id: string; readonly username: string; readonly name: string };
  readonly api_app_id: string;
  readonly token: string;
  readonly container: { readonly type: 'message'; readonly message_ts: string; readonly channel_id: string; readonly is_ephemeral: boolean };
  readonly trigger_id: string;
  readonly team: { readonly id: string; readonly domain: string };
  readonly channel: { readonly id: string; readonly name: string };
  readonly message: Readonly<Record<string, unknown>>;
  readonly response_url: string;
  readonly actions: readonly SlackBlockAction[];
  readonly [field: string]: unknown;
}

/** What a signed POST to the service was answered with. */
export interface SlackHttpResponse {
  readonly status: number;
  readonly body: string;
  /** The `Content-Type` header, or `null`. */
  readonly contentType: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** `X-Slack-Retry-Reason` values Slack sends on redeliveries. */
export type SlackRetryReason = 'http_timeout' | 'http_error' | 'too_many_requests' | 'connection_failed' | 'ssl_error' | 'unknown_error';

/** Options shared by `postSlackEvent` and `postSlackInteraction`. */
export interface SlackSignedPostOptions {
  /** The service's endpoint. */
  readonly url: string;
  readonly signingSecret: string;
  /** `X-Slack-Request-Timestamp`, epoch seconds. Default: now. */
  readonly timestamp?: number;
  /** Replaces the computed `X-Slack-Signature`; `null` sends none. */
  readonly signature?: string | null;
  /** `X-Slack-Retry-Num` (1, 2, 3 on Slack's redeliveries). Default: none. */
  readonly retryNum?: number;
  /** `X-Slack-Retry-Reason`. Default: none. */
  readonly retryReason?: SlackRetryReason;
  /** More request headers (override the computed ones). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of `postSlackEvent`. */
export interface PostSlackEventOptions extends SlackSignedPostOptions {
  /** JSON-encoded compactly as Slack does; a string is sent (and signed) as it is. */
  readonly body: object | string;
}

/** Options of `postSlackInteraction`. */
export interface PostSlackInteractionOptions extends SlackSignedPostOptions {
  /** Sent as `payload=<JSON>`, form-encoded. */
  readonly payload: object;
}
