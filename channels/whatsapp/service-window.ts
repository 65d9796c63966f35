/**
 * The Cloud API's customer-service window, per contact: free-form messages (text, media, buttons)
 * may be sent only within 24 hours of the contact's last message; outside it only an approved
 * template. The time of each contact's last message is kept in Redis, expiring with the window.
 */
import type { Redis } from 'ioredis';

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

/** Creates the windows' store. */
export function createServiceWindows(options: ServiceWindowsOptions): ServiceWindows {
  const key = (contact: string): string => `${options.prefix}:window:${contact}`;
  return {
    async noteInbound(contact, at) {
      const saved = Number(await options.redis.get(key(contact)) ?? '0');
      if (saved >= at.getTime()) return;
      const remaining = at.getTime() + SERVICE_WINDOW_MS - Date.now();
      if (remaining <= 0) return;
      await options.redis.set(key(contact), String(at.getTime()), 'PX', remaining);
    },
    async isOpen(contact, now) {
      const saved = Number(await options.redis.get(key(contact)) ?? '0');
      return saved > 0 && now.getTime() < saved + SERVICE_WINDOW_MS - WINDOW_MARGIN_MS;
    },
  };
}
