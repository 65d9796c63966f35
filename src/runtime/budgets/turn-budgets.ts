/**
 * The budgets as a turn meets them: before a new turn's first model call, whether its sender, its
 * conversation and the deployment are within their limits and the sender within its turn rate;
 * after each model call, what the call cost. The person is told why in words, with when it resets.
 */
import type { BudgetLimits, BudgetsConfig } from '../app/app-types.ts';
import type { Injection } from '../injection.ts';
import type { ModelUsage } from '../model/model-types.ts';
import { scheduledActorOf } from '../proactive/scheduled-injection.ts';
import { durationText, resetText } from './budget-periods.ts';
import { DEPLOYMENT_ID, type Admission, type BudgetScope, type BudgetStore, type ScopeLimits } from './budget-store.ts';

/** Whether a sender is known (a person, a peer agent, a schedule) or not. */
export type SenderKind = 'known' | 'unknown';

/** Who a turn's spending is counted against. */
export interface BudgetSender {
  /** `person:<id>` for a known person, otherwise `<channel>:<sender id>` (`web:b_…`, `sms:+15550100`). */
  readonly id: string;
  readonly kind: SenderKind;
  /** The person, when the sender is one. */
  readonly personId?: string;
}

/** The facts of a turn that budgets need. */
export interface BudgetedTurn {
  readonly turnId: string;
  /** The conversation's scope id. */
  readonly sessionId: string;
  /** The turn's first injection: its sender is the turn's sender. */
  readonly first: Injection | undefined;
}

/** Why a turn may not call the model, for the log and the person. */
export interface BudgetRefusal {
  /** `budget_<scope>_<period>` (`budget_conversation_day`) or `rate_limit`. */
  readonly reason: string;
  /** What the person is told. */
  readonly text: string;
}

/** The budgets a turn runner checks and counts against. */
export interface TurnBudgets {
  /** At `at` (ms since the epoch): `undefined` when the new turn may call the model, else why not. */
  admit(turn: BudgetedTurn, at: number): Promise<BudgetRefusal | undefined>;
  /** Counts one model call of the turn, its usage and its estimated cost (whole micro-dollars; default 0). */
  record(turn: BudgetedTurn, usage: ModelUsage, at: number, costMicros?: number): Promise<void>;
}

/** Options of {@link createTurnBudgets}. */
export interface TurnBudgetsOptions {
  readonly store: BudgetStore;
  readonly budgets: BudgetsConfig;
  /** Told each model call counted, with its sender's kind and its tokens. Default: nothing. */
  readonly onCounted?: (sender: SenderKind, tokens: number) => void;
  /** Told each turn refused, with the refusal's `reason`. Default: nothing. */
  readonly onRefused?: (reason: string) => void;
}

/** The turn-rate window, in ms. */
const RATE_WINDOW_MS = 60_000;

/** What a sender over its turn rate is told. */
export const RATE_LIMIT_TEXT = 'You are sending messages faster than I can answer; try again in a minute.';

/** A turn with no injection (none should exist) is counted as the service's own. */
const SYSTEM_SENDER: BudgetSender = { id: 'system', kind: 'known' };

/**
 * The sender of a turn started by `first`: a known person by their person id (whatever channel
 * they wrote on), a peer agent or a schedule by its sender id, anyone else by channel and sender id.
 */
export function budgetSender(first: Injection | undefined): BudgetSender {
  if (first === undefined) return SYSTEM_SENDER;
  const { personId, agent } = first.sender;
  if (personId !== undefined) return { id: `person:${personId}`, kind: 'known', personId };
  const known = agent === true || scheduledActorOf(first) !== undefined;
  // Some channels already name theirs (`web:b_…`).
  const id = first.sender.id.startsWith(`${first.channel}:`) ? first.sender.id : `${first.channel}:${first.sender.id}`;
  return { id, kind: known ? 'known' : 'unknown' };
}

/** The tokens a call counts for: input, output, cache reads and cache writes alike. */
export function usageTokens(usage: ModelUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
}

function limitsOf(budgets: BudgetsConfig, sender: BudgetSender): BudgetLimits {
  if (sender.personId !== undefined) return budgets.people[sender.personId] ?? budgets.knownSenders;
  return sender.kind === 'known' ? budgets.knownSenders : budgets.unknownSenders;
}

function limited(limits: BudgetLimits): boolean {
  return Object.values(limits).some((value) => value !== undefined);
}

/** Whose limit a refusal names, after `limit for`. */
const WHOSE: Readonly<Record<Exclude<BudgetScope, 'sender'>, string>> = { conversation: 'this conversation', deployment: 'this service' };

/**
 * What the person is told about a refusal: `Today's limit for this conversation is reached; it
 * resets at 00:00 UTC (in 3 h 12 min).`, `You have reached this month's limit; it resets on
 * 1 April at 00:00 UTC (in 12 days).` (their own limit as a sender), or {@link RATE_LIMIT_TEXT}.
 */
export function refusalText(admission: Exclude<Admission, { ok: true }>, at: number): string {
  if (admission.scope === 'rate') return RATE_LIMIT_TEXT;
  const which = admission.period === 'day' ? "today's" : "this month's";
  const reached = admission.scope === 'sender'
    ? `You have reached ${which} limit`
    : `${which.charAt(0).toUpperCase()}${which.slice(1)} limit for ${WHOSE[admission.scope]} is reached`;
  return `${reached}; it resets ${resetText(admission.period, admission.resetsAt)} (in ${durationText(admission.resetsAt - at)}).`;
}

/** {@link TurnBudgets} over `options.store` with the app's `budgets`. */
export function createTurnBudgets(options: TurnBudgetsOptions): TurnBudgets {
  const { store, budgets } = options;
  const scopesOf = (turn: BudgetedTurn, sender: BudgetSender): ScopeLimits[] => [
    { scope: 'sender', id: sender.id, limits: limitsOf(budgets, sender) },
    { scope: 'conversation', id: turn.sessionId, limits: budgets.conversations },
    { scope: 'deployment', id: DEPLOYMENT_ID, limits: budgets.deployment },
  ];
  return {
    async admit(turn, at) {
      const sender = budgetSender(turn.first);
      const scopes = scopesOf(turn, sender);
      const perMinute = budgets.turnsPerMinute;
      if (perMinute === undefined && !scopes.some((scoped) => limited(scoped.limits))) return undefined;
      const rate = perMinute === undefined ? undefined : { senderId: sender.id, turnId: turn.turnId, maxTurns: perMinute, windowMs: RATE_WINDOW_MS };
      const admission = await store.admit(scopes, rate, at);
      if (admission.ok) return undefined;
      const reason = admission.scope === 'rate' ? 'rate_limit' : `budget_${admission.scope}_${admission.period}`;
      options.onRefused?.(reason);
      return { reason, text: refusalText(admission, at) };
    },
    async record(turn, usage, at, costMicros = 0) {
      const sender = budgetSender(turn.first);
      const tokens = usageTokens(usage);
      await store.record(scopesOf(turn, sender), { tokens, calls: 1, costMicros }, at);
      options.onCounted?.(sender.kind, tokens);
    },
  };
}
