/**
 * The `allow:` entries of a channel's sender policy: exact addresses, or patterns where `*` stands
 * for any run of characters. What an entry may look like depends on the channel's addresses:
 *
 * | channel | exact | pattern |
 * | --- | --- | --- |
 * | `sms` | `+447700900123`, `whatsapp:+447700900123` | a number's start and `*`: `+44*`, `whatsapp:+1415*` |
 * | `whatsapp` | `+447700900123` | `+44*` |
 * | `email` | `ada@example.com` (any case) | `*@example.com`, `*@*.example.com` |
 * | `slack` | `T0123:U0456` (`TEAM:USER`) | a whole team: `T0123:*` |
 * | `web` | a browser identity `b_…` | none (web identities are random) |
 *
 * A lone `*` is refused: that is `senders: open`.
 */
import type { ChannelName } from '../app/app-types.ts';

/** An E.164 number, or the start of one followed by `*`, optionally after `whatsapp:` (SMS only). */
const PHONE_EXACT = /^\+[1-9][0-9]{1,14}$/;
const PHONE_PREFIX = /^\+[0-9]{1,15}\*$/;
/** An address with no `*`, no blanks and one `@`. */
const EMAIL_EXACT = /^[^\s@*]+@[^\s@*]+\.[^\s@*]+$/;
/** `*@domain` or `*@*.domain`. */
const EMAIL_DOMAIN = /^\*@(\*\.)?[^\s@*]+\.[^\s@*]+$/;
const SLACK_ENTRY = /^[A-Z0-9]+:([A-Z0-9]+|\*)$/;
const WEB_ENTRY = /^[^\s*]+$/;

function phoneProblem(entry: string, example: string): string | undefined {
  if (PHONE_EXACT.test(entry) || PHONE_PREFIX.test(entry)) return undefined;
  return `"${entry}" is neither an E.164 number (such as ${example}) nor the start of one followed by * (such as +44*)`;
}

/**
 * Why `entry` cannot be an `allow:` entry of `channel`, in one sentence; `undefined` when it can.
 *
 * @example
 * allowEntryProblem('sms', '+44*'); // undefined
 * allowEntryProblem('email', 'example.com'); // '"example.com" is not an email address ... *@example.com ...'
 */
export function allowEntryProblem(channel: ChannelName, entry: string): string | undefined {
  if (entry.trim() === '*') return 'a lone "*" lets everyone in: write senders: open instead';
  switch (channel) {
    case 'sms':
      return phoneProblem(entry.startsWith('whatsapp:') ? entry.slice('whatsapp:'.length) : entry, '+447700900123 or whatsapp:+447700900123');
    case 'whatsapp':
      return phoneProblem(entry, '+447700900123');
    case 'email':
      if (EMAIL_EXACT.test(entry) || EMAIL_DOMAIN.test(entry)) return undefined;
      return `"${entry}" is not an email address: write one address (ada@example.com) or a whole domain (*@example.com, or *@*.example.com for its subdomains)`;
    case 'slack':
      if (SLACK_ENTRY.test(entry)) return undefined;
      return `"${entry}" is not a Slack member: write TEAM:USER (T0123ABC:U0456DEF), or TEAM:* for everyone in a workspace`;
    case 'web':
      if (WEB_ENTRY.test(entry)) return undefined;
      return `"${entry}" is not a web identity: web entries are exact browser identities (b_…), without * (people sign in on the web with a link instead)`;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A matcher for checked `entries` of `channel`: whether an address is one of them or matches one of
 * their patterns. Email addresses compare without regard to case.
 */
export function compileAllowList(channel: ChannelName, entries: readonly string[]): (address: string) => boolean {
  const fold = channel === 'email' ? (text: string): string => text.toLowerCase() : (text: string): string => text;
  const exact = new Set(entries.filter((entry) => !entry.includes('*')).map(fold));
  const patterns = entries
    .filter((entry) => entry.includes('*'))
    .map((entry) => new RegExp(`^${fold(entry).split('*').map(escapeRegExp).join('.*')}$`, 's'));
  return (address) => {
    const folded = fold(address);
    return exact.has(folded) || patterns.some((pattern) => pattern.test(folded));
  };
}
