/** What happens to a message that arrives while the session's turn is running. */
export type MidTurnMode = 'steer' | 'followup';

/** Per-turn limits of an actor. */
export interface ActorLimits {
  /** Model calls per turn, across handoffs. Default 12. */
  readonly maxModelCalls: number;
  /** Time a turn may run before it ends in `error`, in ms. Default 120000. */
  readonly turnDeadlineMs: number;
  /** `passed` handoffs per turn. Default 3. */
  readonly maxHandoffs: number;
  /** Corrective retries after protocol violations before the turn ends in `error`. Default 2. */
  readonly maxCorrectiveRetries: number;
  /** Approximate token budget of the history sent with each call (4 characters ≈ 1 token). Default 60000. */
  readonly historyTokenBudget: number;
  /** Output tokens per model call. Default 4096. */
  readonly maxOutputTokens: number;
}

/** One actor, as the app folder declares it (`actors/<name>.yaml`). */
export interface ActorConfig {
  readonly name: string;
  /** Model id. Default: the configured actor model. */
  readonly model: string;
  /** The actor's own instructions; the respond() contract is added by the runtime. */
  readonly systemPrompt: string;
  /** Registered tool names the actor may call. */
  readonly tools: readonly string[];
  /** Default `steer`. */
  readonly midTurn: MidTurnMode;
  readonly limits: ActorLimits;
}

/** The defaults of {@link ActorLimits}. */
export const DEFAULT_ACTOR_LIMITS: ActorLimits = {
  maxModelCalls: 12,
  turnDeadlineMs: 120_000,
  maxHandoffs: 3,
  maxCorrectiveRetries: 2,
  historyTokenBudget: 60_000,
  maxOutputTokens: 4096,
};
