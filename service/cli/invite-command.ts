/**
 * `switchboard invite <personId> [--minutes N]`: prints a one-time sign-in link with which a person
 * of `switchboard.yaml` signs in on the web chat (basis `invite by operator`). Give the link to that
 * person only: whoever opens it first is signed in as them.
 */
import type { SignInLinkOptions } from '../../channels/web/identity/sign-in-links.ts';
import { DEFAULT_SIGN_IN_TTL_MS, issueSignInLink } from '../../channels/web/identity/sign-in-links.ts';
import type { CommandOutput } from './approvals-command.ts';

/** The usage text of the `invite` command. */
export const INVITE_USAGE = `usage:
  switchboard invite <personId> [--minutes N]   print a one-time web sign-in link for a person (N: 1 to 1440, default 15)`;

/** Longest lifetime of a link, in minutes: one day. */
const MAX_MINUTES = 1440;

/** What the command needs: the app's people and where links are kept. */
export interface InviteCommandDeps {
  readonly people: readonly { readonly id: string; readonly name: string }[];
  /** Redis, key prefix and `PUBLIC_URL`; `ttlMs` is set from `--minutes`. */
  readonly links: Omit<SignInLinkOptions, 'ttlMs'>;
}

function parse(args: readonly string[]): { personId: string; ttlMs: number } | undefined {
  let personId: string | undefined;
  let ttlMs = DEFAULT_SIGN_IN_TTL_MS;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const minutes = arg === '--minutes' ? args[++index] : arg.startsWith('--minutes=') ? arg.slice('--minutes='.length) : null;
    if (minutes !== null) {
      const value = /^[0-9]+$/.test(minutes ?? '') ? Number(minutes) : Number.NaN;
      if (!(value >= 1 && value <= MAX_MINUTES)) return undefined;
      ttlMs = value * 60_000;
    } else if (arg.startsWith('-') || personId !== undefined) {
      return undefined;
    } else {
      personId = arg;
    }
  }
  return personId === undefined ? undefined : { personId, ttlMs };
}

/**
 * Runs `switchboard invite …` (`args` are the words after `invite`) and resolves to the exit code:
 * 0 link printed, 1 unknown person, 2 bad usage (the usage is written).
 */
export async function runInviteCommand(args: readonly string[], deps: InviteCommandDeps, out: CommandOutput): Promise<number> {
  const parsed = parse(args);
  if (parsed === undefined) {
    out.write(`${INVITE_USAGE}\n`);
    return 2;
  }
  const person = deps.people.find((candidate) => candidate.id === parsed.personId);
  if (person === undefined) {
    const known = deps.people.map((candidate) => candidate.id).join(', ') || '(none)';
    out.write(`No person with id "${parsed.personId}" in switchboard.yaml. People: ${known}\n`);
    return 1;
  }
  const link = await issueSignInLink({ ...deps.links, ttlMs: parsed.ttlMs }, person.id, 'invite by operator');
  out.write(`Sign-in link for ${person.name} (${person.id}); it works once, until ${link.expiresAt}:\n${link.url}\n`);
  return 0;
}
