/** A {@link LeaseClock} that only moves when a test says so. */
import type { LeaseClock } from '../../channels/kit/lease/lease-clock.ts';

interface Timer {
  readonly at: number;
  readonly callback: () => void;
}

/** A clock for tests: `now()` starts at 0 and timers fire only inside {@link ManualClock.advance}. */
export interface ManualClock extends LeaseClock {
  /** Moves time forward by `ms`, firing every timer that falls due, in time order. */
  advance(ms: number): void;
  /** How many timers are waiting. */
  pending(): number;
}

/** Creates a {@link ManualClock}. */
export function createManualClock(): ManualClock {
  let now = 0;
  const timers = new Set<Timer>();
  return {
    now: () => now,
    schedule(callback, delayMs) {
      const timer = { at: now + Math.max(0, delayMs), callback };
      timers.add(timer);
      return () => {
        timers.delete(timer);
      };
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        const due = [...timers].filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers.delete(due);
        now = due.at;
        due.callback();
      }
      now = target;
    },
    pending: () => timers.size,
  };
}
