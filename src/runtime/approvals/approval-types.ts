import type { Destination } from '../injection.ts';

/** Where an approval stands. Only `pending` ever changes, once, to one of the three others. */
export type ApprovalStatus = 'pending' | 'granted' | 'denied' | 'expired';

/** Someone on a channel: who asked, who may answer, who answered. */
export interface ChannelIdentity {
  /** Channel id: `web`, `email`, `sms`, `slack`, `whatsapp`. */
  readonly channel: string;
  /** The channel's address of the person (`web:<browser identity>`, an email address, an E.164 number, a Slack user id). */
  readonly address: string;
  /** The configured person, when the address belongs to one. */
  readonly personId?: string;
  /** Whether the channel verified the identity (DKIM/DMARC, a signed Slack request). */
  readonly verified?: boolean;
  /**
   * What the identity rested on, in words, for the audit trail (e.g. `web session cookie`,
   * `web session cookie; sign-in link: invite by operator`). Never used to match identities.
   */
  readonly basis?: string;
  /** `true` for another agent (a peer): it may request an approval, never decide one. */
  readonly agent?: boolean;
}

/** One pending or decided approval, as saved in Redis before the request goes out. */
export interface ApprovalRecord {
  /** 128-bit random, URL-safe (base64url, 22 characters). */
  readonly approvalId: string;
  /** 6 characters from an alphabet without look-alikes, unique among each approver's pending approvals. */
  readonly shortCode: string;
  readonly sessionId: string;
  readonly turnId: string;
  /** The actor whose tool call waits. */
  readonly actor: string;
  readonly toolName: string;
  /** The model's tool_use id. */
  readonly toolCallId: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Hex SHA-256 of the canonical JSON of `args` (keys sorted at every depth). */
  readonly argsHash: string;
  /** Who may decide. */
  readonly approvers: readonly ChannelIdentity[];
  /** Who asked (the person whose message started the turn). */
  readonly requester: ChannelIdentity;
  /** Whether the requester may decide their own request. */
  readonly allowRequester: boolean;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; after it the approval can only expire. */
  readonly expiresAt: string;
  readonly status: ApprovalStatus;
  /** Set once decided. */
  readonly decidedBy?: ChannelIdentity;
  /** ISO 8601, set once decided. */
  readonly decidedAt?: string;
  readonly reason?: string;
  /** Where the request was shown (the conversation of the turn). */
  readonly replyTo: Destination;
  /**
   * Why a person is asked beyond the tool's policy, shown with the request: in a turn that read
   * content from outside, `this turn read content from outside: email body`.
   */
  readonly askedBecause?: string;
}

/** One line of an approval's audit trail. */
export interface ApprovalAuditEntry {
  /** ISO 8601. */
  readonly at: string;
  readonly action: 'requested' | 'granted' | 'denied' | 'expired' | 'refused' | 'executed';
  /** Who did it (absent for the system's own actions, e.g. expiry). */
  readonly by?: ChannelIdentity;
  /** For `refused`: why, in words. */
  readonly detail?: string;
}

/**
 * Why a decision was not taken. `unverified`: the channel could not verify the sender (an email
 * without aligned DKIM/DMARC), so even a listed approver's answer does not count.
 */
export type DecisionRefusal = 'unknown_approval' | 'unverified' | 'not_an_approver' | 'already_decided' | 'expired' | 'args_mismatch';

/** The answer to a decision attempt: the new record, or why nothing changed (with a message for the person). */
export type DecisionOutcome =
  | { readonly ok: true; readonly record: ApprovalRecord }
  | { readonly ok: false; readonly refusal: DecisionRefusal; readonly message: string; readonly record?: ApprovalRecord };

/** What the runtime gives to create an approval. */
export interface NewApproval
  extends Pick<
    ApprovalRecord,
    'sessionId' | 'turnId' | 'actor' | 'toolName' | 'toolCallId' | 'args' | 'approvers' | 'requester' | 'allowRequester' | 'replyTo' | 'askedBecause'
  > {
  /** How long the approval may wait, in ms. */
  readonly ttlMs: number;
}

/** A decision attempt from a channel. */
export interface DecisionAttempt {
  readonly approvalId: string;
  readonly decision: 'granted' | 'denied';
  readonly by: ChannelIdentity;
  /** When the channel carries it (e.g. a signed button payload), it must match the pending call. */
  readonly argsHash?: string;
  readonly reason?: string;
}

/** The handler's outcome, kept so a granted call runs once even across crashes and retries. */
export interface ExecutionResult {
  readonly content: string;
  readonly isError: boolean;
}

/** Approvals in Redis: saved before the request goes out, decided once, audited. */
export interface ApprovalStore {
  /** Saves a new pending approval (and its audit line `requested`); the record exists before anyone is asked. */
  create(input: NewApproval): Promise<ApprovalRecord>;
  get(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** The pending approval with this short code among those `approver` may decide (case-insensitive). */
  findByShortCode(approver: ChannelIdentity, code: string): Promise<ApprovalRecord | undefined>;
  /** Pending approvals `approver` may decide, oldest first. */
  pendingFor(approver: ChannelIdentity): Promise<ApprovalRecord[]>;
  /**
   * One atomic compare-and-set `pending → granted | denied`: the first valid answer wins. An
   * identity its channel could not verify (`by.verified === false`), a non-approver, a late answer (after `expiresAt`), a second answer and an `argsHash` that does not
   * match are refused, recorded in the audit trail, and change nothing.
   */
  decide(attempt: DecisionAttempt): Promise<DecisionOutcome>;
  /** The same compare-and-set to `expired` (the expiry job); refused when already decided. */
  expire(approvalId: string): Promise<DecisionOutcome>;
  audit(approvalId: string): Promise<ApprovalAuditEntry[]>;
  /** Newest first. Default limit 100. */
  list(options?: { readonly status?: ApprovalStatus; readonly limit?: number }): Promise<ApprovalRecord[]>;
  /**
   * Claims the one execution of a granted call. `first: true` for the caller that must run the
   * handler; later callers get the saved result once there is one.
   */
  claimExecution(approvalId: string): Promise<{ readonly first: true } | { readonly first: false; readonly result?: ExecutionResult }>;
  /** Saves the handler's result (and the audit line `executed`). */
  saveExecution(approvalId: string, result: ExecutionResult): Promise<void>;
}
