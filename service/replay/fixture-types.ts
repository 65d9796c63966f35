/**
 * The replay fixture: a recorded conversation as `switchboard replay --export` writes it and
 * `replayFixture` (of `switchboard/testing`) and `switchboard eval` run it. YAML or JSON; see
 * docs/operations.md, "Replaying a conversation", for the format in words.
 */
import type { ContentProvenance } from '../../src/runtime/injection.ts';
import type { ModelOutputBlock } from '../../src/runtime/model/model-types.ts';

/** The `format` of every fixture this version writes and reads. */
export const FIXTURE_FORMAT = 'switchboard-replay/1';

/** Who wrote an injection, as far as the recording tells. */
export interface FixtureSender {
  readonly address: string;
  readonly personId?: string;
  readonly verified?: boolean;
}

/** One recorded message (or pressed button) that a turn gave the model. */
export interface FixtureInjection {
  /** `message` or `user-action`. */
  readonly kind: 'message' | 'user-action';
  readonly channel: string;
  /** What was written; a placeholder when the recording did not keep it (see the fixture's `notes`). */
  readonly text: string;
  /** Where the text came from and whether it was trusted; default: typed by a verified sender. */
  readonly content?: ContentProvenance;
  readonly from?: FixtureSender;
  /** A `user-action`'s action: `name`, `surfaceId`, `sourceComponentId`, `context`. */
  readonly action?: Readonly<Record<string, unknown>>;
}

/** One recorded model call: the blocks the model answered with, or the error the call failed with. */
export type FixtureResponse = { readonly blocks: readonly ModelOutputBlock[] } | { readonly error: string };

/** How a recorded tool call ended: the log's outcomes, and the two calls the runtime refused before any handler. */
export type ToolOutcome = 'ok' | 'error' | 'invalid_output' | 'approval_required' | 'unknown_tool' | 'invalid_arguments';

/** One recorded tool call and what it answered. */
export interface FixtureToolCall {
  readonly tool: string;
  readonly outcome: ToolOutcome;
  /** The model's tool_use id, when recorded. */
  readonly callId?: string;
  /** The arguments; fields holding personal data may be masked as `•••` (ignored in comparisons). */
  readonly args?: Readonly<Record<string, unknown>>;
  /** The tool's output as the model read it (JSON or text; may be cut with `…` at 16 KB). */
  readonly result?: string;
  readonly error?: string;
}

/** An approval the turn asked for, and what became of it. */
export interface FixtureApproval {
  readonly tool: string;
  /** `pending` when the recording ends before anyone decided. */
  readonly decision: 'granted' | 'denied' | 'expired' | 'pending';
  /** The person who decided, when the recording names one. */
  readonly by?: string;
}

/** A part a turn emitted. */
export interface FixturePart {
  readonly partType: string;
  /** Compared only when known on both sides. */
  readonly text?: string;
}

/** What the recorded turn did, for the comparison. */
export interface FixtureOutcome {
  /** The state the turn settled in, or waits in (`suspended`). */
  readonly turnState?: string;
  readonly parts: readonly FixturePart[];
  /** Protocol violations the runtime corrected (`invalid_respond`, `free_text`, …), in order. */
  readonly violations: readonly string[];
}

/** One recorded turn. */
export interface FixtureTurn {
  /** The turn's id in the recording, for reference. */
  readonly turnId?: string;
  readonly actor?: string;
  readonly injections: readonly FixtureInjection[];
  /** One per model call, in order. */
  readonly responses: readonly FixtureResponse[];
  readonly toolCalls: readonly FixtureToolCall[];
  readonly approvals: readonly FixtureApproval[];
  readonly outcome: FixtureOutcome;
}

/** A recorded conversation, ready to replay. */
export interface ReplayFixture {
  readonly format: typeof FIXTURE_FORMAT;
  /** Where it was recorded. */
  readonly source?: { readonly sessionId?: string; readonly app?: string; readonly exportedAt?: string };
  /** The channel the conversation is on. */
  readonly channel: string;
  /** What the recording lacked (texts not kept, …), in words. */
  readonly notes?: readonly string[];
  readonly turns: readonly FixtureTurn[];
}
