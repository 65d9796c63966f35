import { ENV_VARIABLES, SECRET_ENV_VARIABLES, type EnvProblem, type EnvVariable, type RawEnv } from './env-variables.ts';

/** Longest value quoted back in a problem message, in characters. */
const MAX_SHOWN_CHARS = 80;

/**
 * Reads the variables of {@link ENV_VARIABLES} from a raw environment, each exactly once, and
 * collects every problem found, so that one error can list them all. Values are trimmed; an empty
 * or blank value counts as unset.
 */
export class EnvReader {
  readonly #values = new Map<EnvVariable, string>();
  readonly #problems: EnvProblem[] = [];

  constructor(env: RawEnv) {
    for (const name of ENV_VARIABLES) {
      const value = env[name]?.trim();
      if (value !== undefined && value !== '') this.#values.set(name, value);
    }
  }

  /** The problems recorded so far, in the order found. */
  get problems(): readonly EnvProblem[] {
    return this.#problems;
  }

  /** The trimmed value of `name`, or `undefined` when unset, empty or blank. */
  get(name: EnvVariable): string | undefined {
    return this.#values.get(name);
  }

  /** Records a problem with `name`; `message` follows the name, e.g. `must be a URL.` */
  fail(name: EnvVariable, message: string): void {
    this.#problems.push({ variable: name, message });
  }

  /**
   * ` (got "value")` for a variable that is not secret, or `''` for one that is, to end a message.
   * Long values are cut to {@link MAX_SHOWN_CHARS} characters.
   */
  got(name: EnvVariable, value: string): string {
    if (SECRET_ENV_VARIABLES.has(name)) return '';
    const shown = value.length > MAX_SHOWN_CHARS ? `${value.slice(0, MAX_SHOWN_CHARS)}…` : value;
    return ` (got ${JSON.stringify(shown)})`;
  }
}
