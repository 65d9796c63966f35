/**
 * Loads an app folder: `switchboard.yaml`, `actors/*.yaml`, `tools/*.ts|.js|.mjs` and
 * `surfaces/*.ts|.js|.mjs`, validated together so that one error lists every problem.
 */
import { resolve } from 'node:path';
import type { ToolRegistry } from '../../protocol/tools/tool-registry.ts';
import type { ActorConfig } from '../actor/actor-config.ts';
import { appInvalidError, messageOf, AppProblems } from './app-problems.ts';
import { ROUTABLE_CHANNELS, type ChannelRoute, type LoadedApp, type PeerConfig, type Person, type RoutableChannel, type SwitchboardConfig } from './app-types.ts';
import { loadActors, type LoadedActor } from './load-actors.ts';
import { loadSurfaces } from './load-surfaces.ts';
import { loadTools } from './load-tools.ts';
import { readSwitchboardFile, SWITCHBOARD_FILE } from './read-switchboard-file.ts';
import { resolveApprovals } from './resolve-approvals.ts';
import { resolveBudgets } from './resolve-budgets.ts';
import { resolvePeers, type EnvironmentLookup, type ResolvePeersContext } from './resolve-peers.ts';
import { resolvePeople } from './resolve-people.ts';
import { resolveSchedules } from './resolve-schedules.ts';
import { resolveSenders } from './resolve-senders.ts';

/** The result of {@link loadApp}; the shapes it holds (`Person`, `ApprovalConfig`, ...) are in `app-types.ts`. */
export type { LoadedApp } from './app-types.ts';

/** Options of {@link loadApp}. */
export interface LoadAppOptions {
  /** The app folder (holding `switchboard.yaml`, `actors/`, `tools/`, `surfaces/`); relative paths resolve against the working directory. */
  readonly dir: string;
  /** The model of actors whose file sets none. */
  readonly defaultModel: string;
  /** Where the app's tools are registered. Tools registered before the call stay and may be listed by actors. */
  readonly registry: ToolRegistry;
  /**
   * Registers built-in tools that depend on the app (such as `notify`, which needs its people and
   * whether `approvals` names it). Called once `switchboard.yaml` is read (with no people when it is
   * invalid) and before actors' tools and `approvals` are checked, so both may name these tools. A
   * throw is recorded as a problem of {@link BUILTIN_TOOLS_FILE}. Default: none.
   */
  readonly registerBuiltins?: (registry: ToolRegistry, app: BuiltinToolsContext) => void;
  /**
   * Looks up the environment variables the app names (peers' `token: env:NAME`), as read once at
   * start-up: pass the service environment's `lookup`. Default: no variable is set, so an app with
   * peers fails to load.
   */
  readonly environment?: EnvironmentLookup;
}

/** What {@link LoadAppOptions.registerBuiltins} knows of the app. */
export interface BuiltinToolsContext {
  /** The app's people, resolved; `[]` when `switchboard.yaml` is invalid. */
  readonly people: readonly Person[];
  /** The tool names that `approvals` lists. */
  readonly approvalTools: ReadonlySet<string>;
  /**
   * The app's peers, resolved (a peer with a `url` may be called through the tool
   * {@link PeerConfig.toolName}, which a builtin can register); `[]` when `switchboard.yaml` is invalid.
   */
  readonly peers: readonly PeerConfig[];
}

/** The `file` of a problem raised by {@link LoadAppOptions.registerBuiltins}. */
export const BUILTIN_TOOLS_FILE = '(built-in tools)';

function registerBuiltins(
  options: LoadAppOptions,
  config: SwitchboardConfig | undefined,
  app: Omit<BuiltinToolsContext, 'approvalTools'>,
  problems: AppProblems,
): void {
  if (options.registerBuiltins === undefined) return;
  const approvalTools = new Set((config?.approvals ?? []).map((entry) => entry.tool));
  try {
    options.registerBuiltins(options.registry, { ...app, approvalTools });
  } catch (error) {
    problems.add(BUILTIN_TOOLS_FILE, undefined, messageOf(error));
  }
}

function checkActorTools(actors: readonly LoadedActor[], registry: ToolRegistry, problems: AppProblems): void {
  for (const { config, file } of actors) {
    try {
      registry.resolveForActor(config.name, config.tools);
    } catch (error) {
      problems.add(file, 'tools', messageOf(error));
    }
  }
}

function resolveChannels(
  config: SwitchboardConfig,
  actorNames: ReadonlySet<string>,
  problems: AppProblems,
): Record<RoutableChannel, ChannelRoute> {
  const known = [...actorNames].join(', ') || '(none)';
  if (!actorNames.has(config.entryActor)) {
    problems.add(SWITCHBOARD_FILE, 'entryActor', `"${config.entryActor}" is not an actor of this app. Actors: ${known}`);
  }
  const routes = {} as Record<RoutableChannel, ChannelRoute>;
  for (const channel of ROUTABLE_CHANNELS) {
    const route = config.channels?.[channel];
    if (route?.actor !== undefined && !actorNames.has(route.actor)) {
      problems.add(SWITCHBOARD_FILE, `channels.${channel}.actor`, `"${route.actor}" is not an actor of this app. Actors: ${known}`);
    }
    // `senders` is not part of the route: resolveSenders reads it.
    const { senders: _senders, ...written } = route ?? {};
    routes[channel] = { ...written, actor: route?.actor ?? config.entryActor };
  }
  // One a2a task is one turn: a peer's message sent mid-turn waits for its own turn.
  routes.a2a = { ...routes.a2a, midTurn: 'followup' };
  return routes;
}

function peersContext(config: SwitchboardConfig, actorNames: ReadonlySet<string>, options: LoadAppOptions): ResolvePeersContext {
  return {
    actorNames,
    a2aActor: config.channels?.a2a?.actor ?? config.entryActor,
    environment: options.environment ?? ((): undefined => undefined),
  };
}

/**
 * Loads and validates the app in `options.dir`:
 *
 * - every tool module in `tools/` (`.ts`, `.js`, `.mjs`; not `*.test.*` nor names starting with
 *   `_`) is imported and its default export registered into `options.registry`;
 * - every surface module in `surfaces/` (same file rules as tools) is imported; its default export,
 *   a surface template (a function of `(data, context)`), shows the data kind named by its file
 *   name (`surfaces/flight-results.ts` for `flight-results`);
 * - every `actors/<name>.yaml` becomes an {@link ActorConfig} (defaults filled), its tool names
 *   resolved against the registry (after {@link LoadAppOptions.registerBuiltins} ran);
 * - `switchboard.yaml` gives the app name, the entry actor, channel routes (channels it leaves out go
 *   to the entry actor; `actor` may be left out), who may write on each channel (`senders`), people,
 *   approvals, schedules and peers (tokens read through
 *   {@link LoadAppOptions.environment}) and budgets (defaults filled, see `resolve-budgets.ts`), all
 *   cross-checked.
 *
 * Tools are registered as they load, so after a failure the registry may hold some of them.
 *
 * @throws SwitchboardError `app.invalid` listing every problem found, each naming its file and
 *   field; `details` holds `{ dir, problems: AppProblem[] }`.
 *
 * @example
 * const registry = createToolRegistry();
 * const app = await loadApp({ dir: env.appDir, defaultModel: 'claude-sonnet-4-5', registry, environment: env.lookup });
 * const actors = resolveActors(app.actors, registry);
 */
export async function loadApp(options: LoadAppOptions): Promise<LoadedApp> {
  const dir = resolve(options.dir);
  const problems = new AppProblems();
  const tools = await loadTools(dir, options.registry, problems);
  const surfaces = await loadSurfaces(dir, problems);
  const loadedActors = await loadActors(dir, options.defaultModel, problems);
  const actors: ActorConfig[] = loadedActors.map((actor) => actor.config);
  const config = await readSwitchboardFile(dir, problems);
  const actorNames = new Set(actors.map((actor) => actor.name));
  const people = config === undefined ? [] : resolvePeople(config, problems);
  const peers = config === undefined ? [] : resolvePeers(config, peersContext(config, actorNames, options), problems);
  registerBuiltins(options, config, { people, peers }, problems);
  checkActorTools(loadedActors, options.registry, problems);
  if (config === undefined) throw appInvalidError(dir, problems.list());

  const channels = resolveChannels(config, actorNames, problems);
  const approvals = resolveApprovals(config, people, options.registry, problems);
  const schedules = resolveSchedules(config, actorNames, people, problems);
  const budgets = resolveBudgets(config, people, problems);
  const senders = resolveSenders(config, problems);
  if (problems.size > 0) throw appInvalidError(dir, problems.list());
  return { name: config.app, entryActor: config.entryActor, actors, channels, people, senders, approvals, schedules, peers, tools, surfaces, budgets, config };
}
