/**
 * Reads `channels.<id>.senders` of `switchboard.yaml`: who may start a conversation on each
 * channel. Either a mode alone (`senders: pairing`) or the mode with its settings:
 *
 * ```yaml
 * channels:
 *   email:
 *     senders:
 *       mode: allowlist          # open | allowlist | pairing
 *       allow: ["*@example.com", grace@partner.org]
 *       refusal: never           # allowlist only: daily (default) or never
 * ```
 */
import { allowEntryProblem } from '../senders/allow-patterns.ts';
import type { AppProblems } from './app-problems.ts';
import {
  CHANNEL_NAMES,
  REFUSAL_MODES,
  SENDER_MODES,
  type ChannelName,
  type RefusalMode,
  type SenderMode,
  type SendersConfig,
  type SwitchboardConfig,
} from './app-types.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

const KEYS = ['mode', 'allow', 'refusal'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMode(value: unknown): value is SenderMode {
  return typeof value === 'string' && (SENDER_MODES as readonly string[]).includes(value);
}

function isRefusal(value: unknown): value is RefusalMode {
  return typeof value === 'string' && (REFUSAL_MODES as readonly string[]).includes(value);
}

const MODES_TEXT = SENDER_MODES.map((mode) => JSON.stringify(mode)).join(', ');

/** Checks one channel's `allow` list; returns the good entries (email ones lower-cased). */
function readAllow(channel: ChannelName, value: unknown, at: string, problems: AppProblems): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.add(SWITCHBOARD_FILE, `${at}.allow`, 'must be a list of addresses or patterns');
    return [];
  }
  const seen = new Set<string>();
  const entries: string[] = [];
  value.forEach((item: unknown, index) => {
    const field = `${at}.allow[${String(index)}]`;
    if (typeof item !== 'string') {
      problems.add(SWITCHBOARD_FILE, field, 'must be a text: an address or a pattern with *');
      return;
    }
    const entry = channel === 'email' ? item.trim().toLowerCase() : item.trim();
    const problem = allowEntryProblem(channel, entry);
    if (problem !== undefined) problems.add(SWITCHBOARD_FILE, field, problem);
    else if (seen.has(entry)) problems.add(SWITCHBOARD_FILE, field, `"${entry}" is listed twice`);
    else {
      seen.add(entry);
      entries.push(entry);
    }
  });
  return entries;
}

function readSetting(channel: ChannelName, value: unknown, problems: AppProblems): SendersConfig {
  const at = `channels.${channel}.senders`;
  if (value === undefined) return { allow: [] };
  if (isMode(value)) return { mode: value, allow: [] };
  if (!isRecord(value)) {
    problems.add(SWITCHBOARD_FILE, at, `must be one of ${MODES_TEXT}, or { mode, allow, refusal }`);
    return { allow: [] };
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) problems.add(SWITCHBOARD_FILE, `${at}.${key}`, `is not a known key; allowed: ${KEYS.join(', ')}`);
  }
  const { mode, refusal } = value;
  if (!isMode(mode)) problems.add(SWITCHBOARD_FILE, `${at}.mode`, mode === undefined ? `is required: ${MODES_TEXT}` : `must be one of ${MODES_TEXT}`);
  const allow = readAllow(channel, value['allow'], at, problems);
  if (refusal !== undefined && !isRefusal(refusal)) problems.add(SWITCHBOARD_FILE, `${at}.refusal`, 'must be "daily" (one polite refusal per sender a day) or "never"');
  if (mode === 'open' && value['allow'] !== undefined) problems.add(SWITCHBOARD_FILE, `${at}.allow`, 'has no effect with mode open (anyone may write): remove it, or choose allowlist or pairing');
  if (refusal !== undefined && isMode(mode) && mode !== 'allowlist') {
    problems.add(SWITCHBOARD_FILE, `${at}.refusal`, `applies to mode allowlist only (with ${mode}, ${mode === 'open' ? 'nobody is refused' : 'unknown senders get a pairing code instead'})`);
  }
  return { ...(isMode(mode) ? { mode } : {}), allow, ...(isRefusal(refusal) ? { refusal } : {}) };
}

/**
 * Every channel's sender policy as `switchboard.yaml` writes it (mode absent where it sets none),
 * recording a problem for an unknown mode or key, an `allow` entry that cannot be an address of the
 * channel (see `allow-patterns.ts`), a repeated entry, `allow` with mode `open` and `refusal` with
 * a mode other than `allowlist`.
 */
export function resolveSenders(config: SwitchboardConfig, problems: AppProblems): Record<ChannelName, SendersConfig> {
  const senders = {} as Record<ChannelName, SendersConfig>;
  for (const channel of CHANNEL_NAMES) senders[channel] = readSetting(channel, config.channels?.[channel]?.senders, problems);
  return senders;
}
