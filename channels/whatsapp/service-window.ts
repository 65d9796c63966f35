/**
 * The Cloud API's customer-service window, per contact: free-form messages (text, media, buttons)
 * may be sent only within 24 hours of the contact's last message; outside it only an approved
 * template. The time of each contact's last message is kept in Redis, expiring with the window.
 */
import type { Redis } from 'ioredis';
import { defineScript, runScript } from '../../src/runtime/redis/redis-script.ts';

/** The window's length, in ms: 24 hours. */
export const SERVICE_WINDOW_MS = 24 * 3_600_000;

/**
 * How long before the window's end it is treated as closed, in ms: 5 minutes, so a message queued
 * at the edge is not refused by Meta after a retry.
 */
export const WINDOW_MARGIN_MS = 5 * 60_000;

/** The windows of every contact. */
export interface ServiceWindows {
  /** Notes that `contact` (E.164) wrote at `at`; an earlier time than the saved one changes nothing. */
  noteInbound(contact: string, at: Date): Promise<void>;
  /** Whether a free-form message to `contact` may be sent at `now`. */
  isOpen(contact: string, now: Date): Promise<boolean>;
}

/** Options of {@link createServiceWindows}. */
export interface ServiceWindowsOptions {
  readonly redis: Redis;
  /** Key prefix, e.g. `sb:whatsapp:<phone number id>`. */
  readonly prefix: string;
}

/**
 * Saves the time `ARGV[1]` (ms) under `KEYS[1]` for `ARGV[2]` ms, unless a time as late is saved:
 * one round trip, and two messages noted at once cannot move the window back.
 */
const NOTE_INBOUND = defineScript(`
local saved = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if saved >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** Creates the windows' store. */
export function createServiceWindows(options: ServiceWindowsOptions): ServiceWindows {
  const key = (contact: string): string => `${options.prefix}:window:${contact}`;
  return {
    async noteInbound(contact, at) {
      const remaining = at.getTime() + SERVICE_WINDOW_MS - Date.now();
      if (remaining <= 0) return;
      await runScript(options.redis, NOTE_INBOUND, [key(contact)], [at.getTime(), remaining]);
    },
    async isOpen(contact, now) {
      const saved = Number(await options.redis.get(key(contact)) ?? '0');
      return saved > 0 && now.getTime() < saved + SERVICE_WINDOW_MS - WINDOW_MARGIN_MS;
    },
  };
}
