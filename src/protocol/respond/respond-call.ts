import type { Part } from '../parts/part.ts';

/** A respond() call that passed validation. */
export interface RespondCall {
  readonly parts: readonly Part[];
  readonly turnState: string;
  /** Set exactly when `turnState` is `passed`. */
  readonly passTo?: string;
  /** For logs only; never delivered. */
  readonly note?: string;
}

/** Stable codes of the reasons a respond() call is refused. */
export type RespondIssueCode =
  | 'not_an_object'
  | 'unexpected_property'
  | 'parts_missing'
  | 'parts_not_array'
  | 'parts_empty'
  | 'part_not_object'
  | 'part_unexpected_property'
  | 'metadata_missing'
  | 'part_type_missing'
  | 'part_type_unknown'
  | 'part_type_runtime_only'
  | 'part_empty'
  | 'text_not_string'
  | 'data_not_object'
  | 'turn_state_missing'
  | 'turn_state_unknown'
  | 'pass_to_without_passed'
  | 'passed_without_pass_to'
  | 'pass_to_not_string'
  | 'pass_to_unknown_actor'
  | 'note_not_string'
  | 'approval_request_invalid'
  | 'approval_response_invalid';

/** One reason a call is refused; `path` is a JSON Pointer into the call's input. */
export interface RespondIssue {
  readonly code: RespondIssueCode;
  readonly path: string;
  readonly message: string;
}
