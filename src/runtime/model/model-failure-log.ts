/**
 * Model failures in the process log: one warning per failure kind (a refused connection, a
 * timeout, a rejected key, overload...) naming the endpoint's host, at most once per kind per
 * interval, with how many more of that kind there were since. The session's event log keeps every
 * failure; this is what an operator watching the service sees.
 */
import { SwitchboardError } from '../../protocol/errors.ts';
import type { ModelClient } from './model-types.ts';

/** Default of `everyMs`: one warning per kind a minute. */
export const MODEL_FAILURE_WARN_EVERY_MS = 60_000;

/** Options of {@link logModelFailures}. */
export interface ModelFailureLogOptions {
  /** The base URL of the model endpoint; only its host is logged. */
  readonly endpoint: string;
  /** Writes one warning line (a pino logger's `warn`, bound). */
  readonly warn: (fields: Record<string, unknown>, message: string) => void;
  /** At most one warning per kind within this many ms. Default {@link MODEL_FAILURE_WARN_EVERY_MS}. */
  readonly everyMs?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Removes secrets from the failure's words before they are logged (a `Redactor`'s `text`). Default: logged as they are. */
  readonly redact?: (text: string) => string;
}

/** The kind of a failed model call: `details.kind` of a `model.failed` error, else `other`. */
function kindOf(error: unknown): string {
  if (error instanceof SwitchboardError && typeof error.details['kind'] === 'string') return error.details['kind'];
  return 'other';
}

/** `client`, with each failure kind warned about (throttled); calls and their results unchanged. */
export function logModelFailures(client: ModelClient, options: ModelFailureLogOptions): ModelClient {
  const everyMs = options.everyMs ?? MODEL_FAILURE_WARN_EVERY_MS;
  const now = options.now ?? Date.now;
  const host = new URL(options.endpoint).host;
  const last = new Map<string, { at: number; suppressed: number }>();
  const note = (error: unknown): void => {
    const kind = kindOf(error);
    if (kind === 'aborted') return;
    const seen = last.get(kind);
    if (seen !== undefined && now() - seen.at < everyMs) {
      seen.suppressed += 1;
      return;
    }
    const status = error instanceof SwitchboardError ? error.details['status'] : undefined;
    const said = error instanceof Error ? error.message : String(error);
    const reason = options.redact === undefined ? said : options.redact(said);
    options.warn({ kind, host, ...(status === undefined ? {} : { status }), ...(seen === undefined || seen.suppressed === 0 ? {} : { moreSinceLastWarning: seen.suppressed }), reason }, `model call failed: ${kind} (${host})`);
    last.set(kind, { at: now(), suppressed: 0 });
  };
  return {
    async create(request, callOptions) {
      try {
        return await client.create(request, callOptions);
      } catch (error) {
        note(error);
        throw error;
      }
    },
  };
}
