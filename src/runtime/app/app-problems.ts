/**
 * Problems found while loading an app folder. Loading collects every problem first and then
 * throws them together, so one run of the service shows everything to fix.
 */
import { SwitchboardError } from '../../protocol/errors.ts';

/** One thing wrong with an app folder. */
export interface AppProblem {
  /** The file, relative to the app folder, with `/` separators (`actors/concierge.yaml`). */
  readonly file: string;
  /** Where in the file, as a path (`people[0].addresses.sms[1]`); absent for the file as a whole. */
  readonly field?: string;
  /** What is wrong, in one sentence or two. */
  readonly message: string;
}

/** Collects {@link AppProblem}s while an app folder is read. */
export class AppProblems {
  readonly #problems: AppProblem[] = [];

  /** Records a problem in `file`, optionally at `field`. */
  add(file: string, field: string | undefined, message: string): void {
    this.#problems.push(field === undefined || field === '' ? { file, message } : { file, field, message });
  }

  /** Every problem recorded so far, in the order found. */
  list(): readonly AppProblem[] {
    return [...this.#problems];
  }

  /** How many problems have been recorded. */
  get size(): number {
    return this.#problems.length;
  }
}

/** One line for a problem: `file: field: message`. */
export function formatProblem(problem: AppProblem): string {
  return problem.field === undefined
    ? `${problem.file}: ${problem.message}`
    : `${problem.file}: ${problem.field}: ${problem.message}`;
}

/**
 * The error thrown when an app folder has problems: code `app.invalid`, one line per problem in the
 * message, and `details` `{ dir, problems }`.
 */
export function appInvalidError(dir: string, problems: readonly AppProblem[]): SwitchboardError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.map((problem) => `  - ${formatProblem(problem)}`);
  return new SwitchboardError('app.invalid', [`The app in ${dir} is invalid (${count}):`, ...lines].join('\n'), {
    details: { dir, problems },
  });
}

/** The message of any throwable. */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
