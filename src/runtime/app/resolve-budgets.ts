/** Turns the `budgets` of `switchboard.yaml` into a {@link BudgetsConfig}, filling the defaults. */
import type { AppProblems } from './app-problems.ts';
import type { BudgetLimits, BudgetLimitsFile, BudgetsConfig, Person, SwitchboardConfig } from './app-types.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

/** The word that lifts a limit, a default one included. */
export const UNLIMITED = 'unlimited';

/** Default limits of each unknown sender: 200 000 tokens and 100 model calls per UTC day. */
export const DEFAULT_UNKNOWN_SENDER_LIMITS: BudgetLimits = { tokensPerDay: 200_000, callsPerDay: 100 };

/** Default turns one sender may start per minute. */
export const DEFAULT_TURNS_PER_MINUTE = 10;

const LIMIT_FIELDS = ['tokensPerDay', 'tokensPerMonth', 'callsPerDay', 'callsPerMonth'] as const;

/** What a limit must be, for problems. */
const LIMIT_WORDS = `must be a whole number of 0 or more, or ${UNLIMITED}`;

/**
 * One limit as written: `unlimited` is none, a whole number of 0 or more is itself, absent is
 * `fallback`; anything else is a problem at `field` (and no limit).
 */
function resolveLimit(value: unknown, fallback: number | undefined, field: string, problems: AppProblems): number | undefined {
  if (value === undefined) return fallback;
  if (value === UNLIMITED) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  problems.add(SWITCHBOARD_FILE, field, LIMIT_WORDS);
  return undefined;
}

/** A scope's limits as written, each field falling back to `fallback`'s. */
function resolveLimits(written: BudgetLimitsFile | undefined, fallback: BudgetLimits, at: string, problems: AppProblems): BudgetLimits {
  const limits: { -readonly [Key in keyof BudgetLimits]: number } = {};
  for (const field of LIMIT_FIELDS) {
    const value = resolveLimit(written?.[field], fallback[field], `${at}.${field}`, problems);
    if (value !== undefined) limits[field] = value;
  }
  return limits;
}

/**
 * Fills the defaults of `budgets`: each unknown sender {@link DEFAULT_UNKNOWN_SENDER_LIMITS}, known
 * senders, conversations and the deployment none, {@link DEFAULT_TURNS_PER_MINUTE} turns per minute.
 * Each field falls back to its default on its own, and `unlimited` lifts it; a person's own limits
 * fall back to `knownSenders`'. Records a problem for a limit that is neither a whole number of 0
 * or more nor `unlimited` (a rate of 0 too), and for a person id that is not in `people`.
 */
export function resolveBudgets(config: SwitchboardConfig, people: readonly Person[], problems: AppProblems): BudgetsConfig {
  const written = config.budgets ?? {};
  const knownSenders = resolveLimits(written.knownSenders, {}, 'budgets.knownSenders', problems);
  const personIds = new Set(people.map((person) => person.id));
  const byPerson: Record<string, BudgetLimits> = {};
  for (const [personId, limits] of Object.entries(written.people ?? {})) {
    const at = `budgets.people.${personId}`;
    if (!personIds.has(personId)) problems.add(SWITCHBOARD_FILE, at, `"${personId}" is not the id of a person in people`);
    byPerson[personId] = resolveLimits(limits, knownSenders, at, problems);
  }
  const turnsPerMinute = resolveLimit(written.turnsPerMinute, DEFAULT_TURNS_PER_MINUTE, 'budgets.turnsPerMinute', problems);
  if (turnsPerMinute === 0) problems.add(SWITCHBOARD_FILE, 'budgets.turnsPerMinute', `must be 1 or more, or ${UNLIMITED}`);
  return {
    unknownSenders: resolveLimits(written.unknownSenders, DEFAULT_UNKNOWN_SENDER_LIMITS, 'budgets.unknownSenders', problems),
    knownSenders,
    people: byPerson,
    conversations: resolveLimits(written.conversations, {}, 'budgets.conversations', problems),
    deployment: resolveLimits(written.deployment, {}, 'budgets.deployment', problems),
    ...(turnsPerMinute === undefined || turnsPerMinute === 0 ? {} : { turnsPerMinute }),
  };
}
