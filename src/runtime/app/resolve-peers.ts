/**
 * Turns the `peers` of `switchboard.yaml` into {@link PeerConfig}s: tokens read from the
 * environment, URLs normalised, actors and ids cross-checked.
 */
import type { AppProblems } from './app-problems.ts';
import {
  DEFAULT_PEER_TIMEOUT_SECONDS,
  MIN_PEER_TOKEN_CHARS,
  type PeerConfig,
  type SwitchboardConfig,
} from './app-types.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

/** Looks up an environment variable by name; `undefined` when unset (or empty). */
export type EnvironmentLookup = (name: string) => string | undefined;

/** Prefix of a peer's `token`, before the variable name. */
const TOKEN_PREFIX = 'env:';

/** The tool that calls peer `id`: `ask_<id>`, every `-` replaced by `_` (tool names take `[a-z0-9_]` safely). */
export function peerToolName(id: string): string {
  return `ask_${id.replaceAll('-', '_')}`;
}

/** What {@link resolvePeers} needs besides the file. */
export interface ResolvePeersContext {
  /** The actors of the app, by name. */
  readonly actorNames: ReadonlySet<string>;
  /** The actor of the `a2a` channel route: the default of a peer's `actor`. */
  readonly a2aActor: string;
  /** The environment the tokens are read from. */
  readonly environment: EnvironmentLookup;
}

type PeerEntry = NonNullable<SwitchboardConfig['peers']>[number];

/** `url` as a base URL without trailing `/`, or why it is not one. */
function normaliseUrl(value: string): { url: string } | { problem: string } {
  if (!URL.canParse(value)) return { problem: `"${value}" is not an absolute http(s) URL` };
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `"${value}" is not an http(s) URL` };
  if (url.username !== '' || url.password !== '') return { problem: 'must not carry credentials; the token authenticates us' };
  if (url.search !== '' || url.hash !== '') return { problem: `"${value}" must have no query or fragment` };
  return { url: url.href.replace(/\/+$/, '') };
}

/** The token value, recording a problem (naming the peer and the variable, never the value) when unusable. */
function readToken(entry: PeerEntry, at: string, environment: EnvironmentLookup, problems: AppProblems): { variable: string; token: string } {
  const variable = entry.token.startsWith(TOKEN_PREFIX) ? entry.token.slice(TOKEN_PREFIX.length) : entry.token;
  const token = environment(variable)?.trim() ?? '';
  if (token === '') {
    problems.add(SWITCHBOARD_FILE, `${at}.token`, `the environment variable ${variable} (the token of peer "${entry.id}") is not set`);
  } else if (token.length < MIN_PEER_TOKEN_CHARS) {
    problems.add(
      SWITCHBOARD_FILE,
      `${at}.token`,
      `the environment variable ${variable} (the token of peer "${entry.id}") must be at least ${MIN_PEER_TOKEN_CHARS} characters long (e.g. the output of \`openssl rand -hex 32\`)`,
    );
  }
  return { variable, token };
}

/** Records a problem when `key` was already seen at an earlier index; remembers it otherwise. */
function checkUnique(seen: Map<string, number>, key: string, index: number, field: string, message: (earlier: number) => string, problems: AppProblems): void {
  const earlier = seen.get(key);
  if (earlier === undefined) seen.set(key, index);
  else problems.add(SWITCHBOARD_FILE, field, message(earlier));
}

/**
 * Fills defaults (`actor`: the `a2a` channel's actor; `timeoutSeconds`
 * {@link DEFAULT_PEER_TIMEOUT_SECONDS}), reads each token from its `env:` variable and records a
 * problem for: a peer id used twice (or two ids giving the same tool name, such as `a-b` and
 * `a_b`), a token variable that is unset or shorter than {@link MIN_PEER_TOKEN_CHARS} characters,
 * two peers with the same token (the token is what identifies a caller), a `url` that is not an
 * absolute http(s) base URL, and an `actor` that is not an actor of the app.
 */
export function resolvePeers(config: SwitchboardConfig, context: ResolvePeersContext, problems: AppProblems): PeerConfig[] {
  const ids = new Map<string, number>();
  const toolNames = new Map<string, number>();
  const tokens = new Map<string, number>();
  const known = [...context.actorNames].join(', ') || '(none)';
  return (config.peers ?? []).map((entry, index) => {
    const at = `peers[${index}]`;
    const toolName = peerToolName(entry.id);
    checkUnique(ids, entry.id, index, `${at}.id`, (earlier) => `"${entry.id}" is already the id of peers[${earlier}]`, problems);
    if (ids.get(entry.id) === index) {
      checkUnique(toolNames, toolName, index, `${at}.id`, (earlier) => `"${entry.id}" gives the tool name ${toolName}, as peers[${earlier}] does ("-" becomes "_")`, problems);
    }
    const { variable, token } = readToken(entry, at, context.environment, problems);
    if (token.length >= MIN_PEER_TOKEN_CHARS) {
      checkUnique(tokens, token, index, `${at}.token`, (earlier) => `${variable} holds the same token as the variable of peers[${earlier}]; each peer needs its own token, which identifies it`, problems);
    }
    const actor = entry.actor ?? context.a2aActor;
    if (entry.actor !== undefined && !context.actorNames.has(entry.actor)) {
      problems.add(SWITCHBOARD_FILE, `${at}.actor`, `"${entry.actor}" is not an actor of this app. Actors: ${known}`);
    }
    const peer: PeerConfig = {
      id: entry.id,
      name: entry.name,
      toolName,
      token,
      tokenVariable: variable,
      actor,
      timeoutSeconds: entry.timeoutSeconds ?? DEFAULT_PEER_TIMEOUT_SECONDS,
      ...(entry.consumes === undefined ? {} : { consumes: [...entry.consumes] }),
    };
    if (entry.url === undefined) return peer;
    const url = normaliseUrl(entry.url);
    if ('problem' in url) {
      problems.add(SWITCHBOARD_FILE, `${at}.url`, url.problem);
      return peer;
    }
    return { ...peer, url: url.url };
  });
}
