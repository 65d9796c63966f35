import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SwitchboardError } from '../protocol/errors.ts';
import { EnvReader } from './env-reader.ts';
import type { EnvProblem, EnvVariable, RawEnv } from './env-variables.ts';
import type { AnthropicEnv, RedisEnv, SwitchboardEnv } from './env-types.ts';
import { isLogLevel, type LogLevel } from './log-levels.ts';
import { parseEmail, parseSlack, parseSms } from './parse-channels.ts';
import { parseWhatsApp } from './parse-whatsapp.ts';
import { parseTrustProxy } from './parse-trust-proxy.ts';
import { parseHttpUrl, parseRedisUrl } from './parse-url.ts';

/** Default of `PORT`. */
export const DEFAULT_PORT = 3000;

/** Default of `ANTHROPIC_BASE_URL`, the same as the Anthropic SDK's. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** Default of `LOG_LEVEL`. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** Default of `SWITCHBOARD_TURN_CONCURRENCY`: turns one process runs at once. */
export const DEFAULT_TURN_CONCURRENCY = 128;

/** Largest `SWITCHBOARD_TURN_CONCURRENCY` taken. */
const MAX_TURN_CONCURRENCY = 10_000;

/**
 * Paths {@link loadEnv} cannot know by itself; the caller that wires the app together passes them.
 */
export interface LoadEnvDefaults {
  /** The example app folder (the repository root): the default of `SWITCHBOARD_APP`. */
  readonly appDir: string;
  /**
   * Data folder of the private Redis used when `REDIS_URL` is unset. Default
   * `<app folder>/.data/redis`, the app folder being `SWITCHBOARD_APP` when set: each app keeps its
   * own data, and the CLI run on an app finds the Redis of the service running on it.
   */
  readonly redisDataDir?: string;
  /**
   * Folder a relative `SWITCHBOARD_APP` is resolved against. Default: the process's working
   * directory.
   */
  readonly cwd?: string;
}

/**
 * Reads, validates and types every variable of switchboard's environment, once, at start-up.
 *
 * Every problem is collected before failing: the thrown error lists each one on its own line,
 * naming its variable, and never quotes a secret.
 *
 * @param env - The raw environment, usually `process.env`. Each variable is read exactly once, into a
 *   frozen copy: the variables in {@link ENV_VARIABLES} are validated, and every variable can be
 *   looked up later through {@link SwitchboardEnv.lookup}. Empty or blank values count as unset.
 * @param defaults - Paths used as defaults; see {@link LoadEnvDefaults}.
 * @throws {SwitchboardError} code `config.invalid`; `details.problems` is an array of
 *   {@link EnvProblem}.
 *
 * @example
 * const env = loadEnv(process.env, { appDir: repoRoot });
 * if (env.channels.email) startEmail(env.email);
 */
export function loadEnv(env: RawEnv, defaults: LoadEnvDefaults): SwitchboardEnv {
  const variables = snapshot(env);
  const reader = new EnvReader(variables);
  const port = readPort(reader);
  const publicUrlValue = reader.get('PUBLIC_URL');
  const publicUrl =
    publicUrlValue === undefined ? `http://localhost:${port}` : parseHttpUrl(reader, 'PUBLIC_URL', publicUrlValue, 'strip');
  const appDir = readAppDir(reader, defaults);
  const redis = readRedis(reader, defaults, appDir);
  const anthropic = readAnthropic(reader);
  const email = parseEmail(reader);
  const sms = parseSms(reader);
  const slack = parseSlack(reader);
  const whatsapp = parseWhatsApp(reader);
  const adminToken = readAdminToken(reader);
  const trustProxy = parseTrustProxy(reader);
  const sessionSecret = readSessionSecret(reader);
  const logLevel = readLogLevel(reader);
  const turnConcurrency = readTurnConcurrency(reader);

  if (reader.problems.length > 0 || publicUrl === undefined || redis === undefined || anthropic === undefined) {
    throw configError(reader.problems);
  }
  return {
    port,
    publicUrl,
    redis,
    appDir,
    anthropic,
    email,
    sms,
    slack,
    whatsapp,
    adminToken,
    trustProxy,
    sessionSecret,
    logLevel,
    turnConcurrency,
    channels: { web: true, email: email !== undefined, sms: sms !== undefined, slack: slack !== undefined, whatsapp: whatsapp !== undefined },
    lookup: (name) => (Object.hasOwn(variables, name) ? variables[name] : undefined),
  };
}

/**
 * A frozen copy of `env`, each variable read exactly once: trimmed, and without the empty or
 * blank ones (which count as unset).
 */
function snapshot(env: RawEnv): RawEnv {
  const copy: Record<string, string> = {};
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim();
    if (value !== undefined && value !== '') copy[name] = value;
  }
  return Object.freeze(copy);
}

/** Builds the one error thrown for a bad environment. */
function configError(problems: readonly EnvProblem[]): SwitchboardError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.map((p) => `  - ${p.variable} ${p.message}`);
  return new SwitchboardError('config.invalid', [`Invalid environment (${count}):`, ...lines].join('\n'), {
    details: { problems },
  });
}

function readPort(reader: EnvReader): number {
  return readInteger(reader, 'PORT', 1, 65_535, DEFAULT_PORT);
}

/** Variable `name` as a whole number from `min` to `max`; `fallback` when unset or (a problem noted) out of range. */
function readInteger(reader: EnvReader, name: EnvVariable, min: number, max: number, fallback: number): number {
  const value = reader.get(name);
  if (value === undefined) return fallback;
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) {
    reader.fail(name, `must be an integer from ${String(min)} to ${String(max)}${reader.got(name, value)}.`);
    return fallback;
  }
  return number;
}

function readRedis(reader: EnvReader, defaults: LoadEnvDefaults, appDir: string): RedisEnv | undefined {
  const value = reader.get('REDIS_URL');
  if (value === undefined) {
    return { mode: 'embedded', dataDir: resolve(defaults.redisDataDir ?? join(appDir, '.data', 'redis')) };
  }
  const url = parseRedisUrl(reader, 'REDIS_URL', value);
  return url === undefined ? undefined : { mode: 'external', url };
}

function readAppDir(reader: EnvReader, defaults: LoadEnvDefaults): string {
  const value = reader.get('SWITCHBOARD_APP');
  if (value === undefined) return resolve(defaults.appDir);
  const dir = resolve(defaults.cwd ?? '', value);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory() !== true) {
    reader.fail(
      'SWITCHBOARD_APP',
      `must name an existing folder holding actors/, tools/ and switchboard.yaml; ${JSON.stringify(dir)} is not a folder.`,
    );
  }
  return dir;
}

function readAnthropic(reader: EnvReader): AnthropicEnv | undefined {
  const apiKey = reader.get('ANTHROPIC_API_KEY');
  const baseUrlValue = reader.get('ANTHROPIC_BASE_URL');
  const baseUrl =
    baseUrlValue === undefined ? DEFAULT_ANTHROPIC_BASE_URL : parseHttpUrl(reader, 'ANTHROPIC_BASE_URL', baseUrlValue, 'strip');
  return baseUrl === undefined ? undefined : { apiKey, baseUrl };
}

/** Minimum length of `ADMIN_TOKEN`, in characters. */
const MIN_ADMIN_TOKEN_CHARS = 16;

function readAdminToken(reader: EnvReader): string | undefined {
  const token = reader.get('ADMIN_TOKEN');
  if (token !== undefined && token.length < MIN_ADMIN_TOKEN_CHARS) {
    reader.fail('ADMIN_TOKEN', `must be at least ${MIN_ADMIN_TOKEN_CHARS} characters long (e.g. the output of \`openssl rand -hex 32\`).`);
    return undefined;
  }
  return token;
}

/** Minimum length of `SESSION_SECRET`, in characters. */
export const MIN_SESSION_SECRET_CHARS = 32;

function readSessionSecret(reader: EnvReader): string | undefined {
  const secret = reader.get('SESSION_SECRET');
  if (secret !== undefined && secret.length < MIN_SESSION_SECRET_CHARS) {
    reader.fail(
      'SESSION_SECRET',
      `must be at least ${MIN_SESSION_SECRET_CHARS} characters long (e.g. the output of \`openssl rand -base64 48\`), or unset to have one generated and kept in Redis.`,
    );
    return undefined;
  }
  return secret;
}

function readLogLevel(reader: EnvReader): LogLevel {
  const value = reader.get('LOG_LEVEL');
  if (value === undefined) return DEFAULT_LOG_LEVEL;
  const level = value.toLowerCase();
  if (isLogLevel(level)) return level;
  reader.fail('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent${reader.got('LOG_LEVEL', value)}.`);
  return DEFAULT_LOG_LEVEL;
}

function readTurnConcurrency(reader: EnvReader): number {
  return readInteger(reader, 'SWITCHBOARD_TURN_CONCURRENCY', 1, MAX_TURN_CONCURRENCY, DEFAULT_TURN_CONCURRENCY);
}
