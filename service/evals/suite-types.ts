/**
 * An eval suite, as `switchboard eval <suite.yaml>` reads it: cases (a recorded conversation or a
 * scripted one), each with expectations on what the app's actors do. See docs/operations.md,
 * "Evals", for the format in words.
 */

/** One step of a scripted model, as a suite writes it. */
export type SuiteStep =
  | { readonly call: string; readonly input?: Readonly<Record<string, unknown>> }
  | { readonly respond: { readonly parts: readonly { readonly partType: string; readonly text?: string; readonly data?: Readonly<Record<string, unknown>> }[]; readonly turnState: string; readonly passTo?: string; readonly note?: string } }
  | { readonly answer: string }
  /** Several blocks in one model response (e.g. two tool calls at once). */
  | readonly SuiteStep[];

/** One message of a scripted case and the model's steps for its turn. */
export interface SuiteTurn {
  readonly message: string;
  /** The model's steps for the whole turn (decisions included), when the case is `model: scripted`. */
  readonly script?: readonly SuiteStep[];
  /** What the approvals the turn asks for get; unset: the turn stays waiting. */
  readonly approve?: 'granted' | 'denied';
}

/** A tool call to find: by name, with arguments matching a partial object (`/regex/` strings match by pattern). */
export interface ToolExpectation {
  readonly name: string;
  readonly args?: Readonly<Record<string, unknown>>;
}

/** Text to find in the parts' texts, in parts of one type when `partType` is given. */
export interface TextExpectation {
  readonly text: string;
  readonly partType?: string;
}

/** One expectation: an object with one of these keys. */
export interface Expectation {
  readonly toolCalled?: string | ToolExpectation;
  readonly toolNotCalled?: string;
  /** A tool's name, or `true` for any approval. */
  readonly approvalRequested?: string | true;
  readonly noApproval?: true;
  /** A part of this type is among the parts. */
  readonly part?: string;
  readonly noPart?: string;
  readonly textContains?: string | TextExpectation;
  readonly textNotContains?: string | TextExpectation;
  /** The state the last turn ended in (`complete`, `clarifying`, `suspended`, …). */
  readonly turnState?: string;
}

/** One case of a suite. */
export interface SuiteCase {
  readonly name: string;
  /** `scripted`: the recorded or scripted responses answer; `live` (the default): the model endpoint the service would use. */
  readonly model?: 'scripted' | 'live';
  /** A fixture file written by `switchboard replay --export`, relative to the suite file. */
  readonly fixture?: string;
  /** The messages of a scripted conversation (when there is no fixture). */
  readonly turns?: readonly SuiteTurn[];
  /** The channel of `turns`. Default `web`. */
  readonly channel?: string;
  /** Who writes `turns`: a person id of switchboard.yaml, or an address. Default an unknown visitor. */
  readonly from?: string;
  /** Tools whose real handlers run; every other tool answers from the recording or `results`. */
  readonly live?: readonly string[];
  /** What a tool answers, by tool name, for tools the recording does not answer. */
  readonly results?: Readonly<Record<string, unknown>>;
  readonly expect: readonly Expectation[];
}

/** A suite file. */
export interface Suite {
  /** A name for the table's title. Default the file name. */
  readonly suite?: string;
  /** The app folder, relative to the suite file. Default the CLI's app (`SWITCHBOARD_APP`, else this repository's example). */
  readonly app?: string;
  readonly cases: readonly SuiteCase[];
}
