/** Turns the `schedules` of `switchboard.yaml` into {@link ScheduleConfig}s, checking references. */
import type { AppProblems } from './app-problems.ts';
import { DEFAULT_SCHEDULE_TIMEZONE, type Person, type ScheduleConfig, type SwitchboardConfig } from './app-types.ts';
import { cronProblem, timeZoneProblem } from './cron-pattern.ts';
import { parseRecipient } from './parse-recipient.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

/**
 * Fills defaults (`timezone` {@link DEFAULT_SCHEDULE_TIMEZONE}, `enabled: true`), resolves `to`
 * (see {@link parseRecipient}) and records a problem for: an id used twice, an unknown time zone, a
 * cron pattern that is not 5 or 6 valid fields, an actor that is not in `actorNames`, a person id
 * that is not in `people`, and a malformed address. Disabled schedules are checked too.
 */
export function resolveSchedules(
  config: SwitchboardConfig,
  actorNames: ReadonlySet<string>,
  people: readonly Person[],
  problems: AppProblems,
): ScheduleConfig[] {
  const personIds = new Set(people.map((person) => person.id));
  const knownActors = [...actorNames].join(', ') || '(none)';
  const firstById = new Map<string, number>();
  const schedules: ScheduleConfig[] = [];
  (config.schedules ?? []).forEach((entry, index) => {
    const at = `schedules[${index}]`;
    const earlier = firstById.get(entry.id);
    if (earlier === undefined) firstById.set(entry.id, index);
    else problems.add(SWITCHBOARD_FILE, `${at}.id`, `"${entry.id}" is already the id of schedules[${earlier}]`);

    const timezone = entry.timezone ?? DEFAULT_SCHEDULE_TIMEZONE;
    const zoneProblem = timeZoneProblem(timezone);
    if (zoneProblem !== undefined) problems.add(SWITCHBOARD_FILE, `${at}.timezone`, zoneProblem);
    const patternProblem = cronProblem(entry.cron, zoneProblem === undefined ? timezone : DEFAULT_SCHEDULE_TIMEZONE);
    if (patternProblem !== undefined) problems.add(SWITCHBOARD_FILE, `${at}.cron`, patternProblem);

    if (!actorNames.has(entry.actor)) {
      problems.add(SWITCHBOARD_FILE, `${at}.actor`, `"${entry.actor}" is not an actor of this app. Actors: ${knownActors}`);
    }
    const parsed = parseRecipient(entry.to);
    if (!parsed.ok) {
      problems.add(SWITCHBOARD_FILE, `${at}.to`, parsed.problem);
      return;
    }
    if ('personId' in parsed.recipient && !personIds.has(parsed.recipient.personId)) {
      problems.add(SWITCHBOARD_FILE, `${at}.to`, `"${parsed.recipient.personId}" is not the id of a person in people`);
    }
    schedules.push({
      id: entry.id,
      cron: entry.cron.trim(),
      actor: entry.actor,
      prompt: entry.prompt,
      to: parsed.recipient,
      timezone,
      enabled: entry.enabled ?? true,
    });
  });
  return schedules;
}
