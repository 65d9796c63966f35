import type { Message, MessageCreateParams, StopReason } from '@anthropic-ai/sdk/resources/messages';

/** A text block the fake answers with. */
export interface FakeTextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A tool call the fake answers with. */
export interface FakeToolUseBlock {
  readonly type: 'tool_use';
  /** Default `toolu_fake_<call>_<block>`, unique within a fake's life. */
  readonly id?: string;
  /** The tool's name, as the request's `tools` list gives it. */
  readonly name: string;
  /** The tool input: any JSON value (the API always sends an object). */
  readonly input: unknown;
}

/** One content block of a scripted reply. */
export type FakeContentBlock = FakeTextBlock | FakeToolUseBlock;

/** Token counts of a scripted reply. Each defaults as documented. */
export interface FakeUsage {
  /** Default: about a quarter of the request's `system` + `messages` + `tools` JSON length. */
  readonly inputTokens?: number;
  /** Default: about a quarter of the reply content's JSON length, at least 1. */
  readonly outputTokens?: number;
  /** Default 0. */
  readonly cacheReadInputTokens?: number;
  /** Default 0. Reported as 5-minute cache writes. */
  readonly cacheCreationInputTokens?: number;
}

/** Fields every reply may carry. */
interface FakeReplyTiming {
  /** Wait this long before answering, in milliseconds (to test client timeouts). Default 0. */
  readonly delayMs?: number;
}

/** A reply built from content blocks: served as JSON, or as SSE when the request streams. */
export interface FakeMessageReply extends FakeReplyTiming {
  readonly content: readonly FakeContentBlock[];
  /** Default `tool_use` when the content has a tool call, else `end_turn`. */
  readonly stopReason?: StopReason;
  readonly usage?: FakeUsage;
  /** Default `msg_fake_<call>`. */
  readonly id?: string;
  /** Default: the request's `model`. */
  readonly model?: string;
  /** When streaming, wait this long between two events, in milliseconds. Default 0. */
  readonly eventDelayMs?: number;
  /**
   * When streaming, send only this many events, then destroy the socket (a stream cut mid-way).
   * Default: the whole stream.
   */
  readonly cutAfterEvents?: number;
}

/** A complete recorded `Message`, served as is (JSON), or cut into SSE events when the request streams. */
export interface FakeRecordedReply extends FakeReplyTiming {
  readonly recorded: Message;
}

/** One Server-Sent Event as the API sends it. */
export interface FakeSseEvent {
  /** The `event:` line: `message_start`, `content_block_delta`, `ping`, `error`, ... */
  readonly event: string;
  /** The `data:` line, serialised as JSON. */
  readonly data: unknown;
}

/** A recorded event stream, replayed verbatim. Only for streaming requests. */
export interface FakeRecordedStreamReply extends FakeReplyTiming {
  readonly recordedEvents: readonly FakeSseEvent[];
}

/** An API error. */
export interface FakeErrorReply extends FakeReplyTiming {
  readonly error: {
    /** HTTP status, e.g. 429, 529. */
    readonly status: number;
    /** The API's error type, e.g. `rate_limit_error`, `overloaded_error`. */
    readonly type: string;
    readonly message: string;
    /**
     * Sent as the `retry-after` header, in seconds (fractions allowed, e.g. `0.01`, to keep a
     * retrying test fast). Default: no header.
     */
    readonly retryAfterSeconds?: number;
    /** Sent as the `x-should-retry` header, which the SDK obeys over its own rules. Default: no header. */
    readonly shouldRetry?: boolean;
    /** Default `req_fake_<n>`. */
    readonly requestId?: string;
    /**
     * For a streaming request: answer 200, send `message_start`, then an `error` event, as the API
     * does when it fails mid-stream. Default `false`.
     */
    readonly midStream?: boolean;
  };
}

/** Closes the connection without answering (a network failure). */
export interface FakeDisconnectReply extends FakeReplyTiming {
  readonly disconnect: true;
}

/** Accepts the request and never answers (until the client gives up or the fake closes). */
export interface FakeHangReply extends FakeReplyTiming {
  readonly hang: true;
}

/** Anything a script may answer with. */
export type FakeReply =
  | FakeMessageReply
  | FakeRecordedReply
  | FakeRecordedStreamReply
  | FakeErrorReply
  | FakeDisconnectReply
  | FakeHangReply;

/** A request the fake received. */
export interface FakeRequest {
  readonly method: string;
  /** Path with query, e.g. `/v1/messages?beta=true`. */
  readonly path: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when there is none. Not validated beyond its basic shape. */
  readonly body: unknown;
}

/** A `POST /v1/messages` request, given to scripts. */
export interface FakeMessageRequest extends FakeRequest {
  readonly body: MessageCreateParams;
  /** 0 for the first messages request since start or {@link FakeAnthropic.reset}, then 1, 2, ... */
  readonly callIndex: number;
}

/** Chooses the reply to each messages request. */
export type FakeScript = (request: FakeMessageRequest, callIndex: number) => FakeReply | Promise<FakeReply>;

/** Options of {@link startFakeAnthropic}. */
export interface FakeAnthropicOptions {
  /** A script, or a queue of replies used in order. Default: an empty queue. */
  readonly replies?: FakeScript | readonly FakeReply[];
  /** Model ids listed by `GET /v1/models`. Default: switchboard's default actor and translator models. */
  readonly models?: readonly string[];
}

/** A running fake Anthropic API. */
export interface FakeAnthropic {
  /** Base URL for the SDK's `baseURL`, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  /** Every request received, in order (messages and model listings). */
  readonly requests: readonly FakeRequest[];
  /** Only the `POST /v1/messages` requests, in order. */
  readonly messageRequests: readonly FakeMessageRequest[];
  /**
   * Things that went wrong on the fake's side (no reply scripted, a script that threw); each was
   * also answered with a 400 `invalid_request_error`, which the SDK does not retry. Assert it is
   * empty. Requests refused as the real API would refuse them are not problems.
   */
  readonly problems: readonly string[];
  /** Appends replies to the queue (switching from a script to a queue if needed). */
  enqueue(...replies: FakeReply[]): void;
  /** Replaces the queue or script with `script`. */
  respondWith(script: FakeScript): void;
  /** Forgets requests, problems, the queue and the script, and restarts `callIndex` at 0. */
  reset(): void;
  /** Stops the server, dropping open connections. */
  close(): Promise<void>;
}
