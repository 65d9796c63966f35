/**
 * The faults of a chaos run: when each strikes (fixed by the seed) and how it is done. Faults run
 * one after another; each is recorded with the time it struck and the time the process it hit
 * was serving again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosPlan } from './plan.ts';
import type { Random } from './random.ts';

/** The kinds of fault, as the report names them. */
export type FaultKind = 'worker SIGKILL' | 'web SIGKILL' | 'Redis SIGTERM' | 'Redis SIGKILL';

/** A fault to strike `atMs` after the load started. */
export interface ScheduledFault {
  readonly kind: FaultKind;
  readonly atMs: number;
}

/** A fault that struck. Times in ms since the epoch. */
export interface StruckFault {
  readonly kind: FaultKind;
  readonly at: number;
  /** When the replacement (or restarted) process was serving again. */
  readonly backAt: number;
  /** For a worker SIGKILL: the killed worker's name. */
  readonly worker?: string;
}

/** What the faults act on. */
export interface FaultTargets {
  /**
   * SIGKILLs one worker, `pick` choosing which of the `count` running, and starts a replacement;
   * resolves to the killed worker's name.
   */
  killWorker(pick: (count: number) => number): Promise<string>;
  restartWeb(): Promise<void>;
  restartRedisGracefully(): Promise<void>;
  restartRedisAfterKill(): Promise<void>;
}

/**
 * Spreads the plan's faults over 10 %..85 % of the load time, one per slot with the slot's
 * order shuffled by the seed and a random place within its slot (so they never overlap and the
 * last leaves time to see the recovery under load).
 */
export function scheduleFaults(plan: ChaosPlan, random: Random): ScheduledFault[] {
  const { workerKills, webRestarts, redisTerms, redisKills } = plan.faults;
  const kinds: FaultKind[] = [
    ...Array<FaultKind>(workerKills).fill('worker SIGKILL'),
    ...Array<FaultKind>(webRestarts).fill('web SIGKILL'),
    ...Array<FaultKind>(redisTerms).fill('Redis SIGTERM'),
    ...Array<FaultKind>(redisKills).fill('Redis SIGKILL'),
  ];
  for (let index = kinds.length - 1; index > 0; index -= 1) {
    const other = random.between(0, index);
    [kinds[index], kinds[other]] = [kinds[other] as FaultKind, kinds[index] as FaultKind];
  }
  const slotMs = (plan.loadMs * 0.75) / Math.max(kinds.length, 1);
  return kinds.map((kind, slot) => ({ kind, atMs: Math.round(plan.loadMs * 0.1 + slotMs * (slot + 0.2 + 0.6 * random.next())) }));
}

/** Strikes each fault at its time (counted from `startedAt`, ms since the epoch). */
export async function strikeFaults(schedule: readonly ScheduledFault[], targets: FaultTargets, startedAt: number, random: Random): Promise<StruckFault[]> {
  const struck: StruckFault[] = [];
  for (const fault of schedule) {
    await sleep(Math.max(0, startedAt + fault.atMs - Date.now()));
    const at = Date.now();
    const worker = await strike(fault.kind, targets, random);
    struck.push({ kind: fault.kind, at, backAt: Date.now(), ...(worker === undefined ? {} : { worker }) });
  }
  return struck;
}

/** Strikes one fault; resolves to the killed worker's name for a worker SIGKILL. */
async function strike(kind: FaultKind, targets: FaultTargets, random: Random): Promise<string | undefined> {
  switch (kind) {
    case 'worker SIGKILL':
      return targets.killWorker((count) => random.between(0, count - 1));
    case 'web SIGKILL':
      await targets.restartWeb();
      return undefined;
    case 'Redis SIGTERM':
      await targets.restartRedisGracefully();
      return undefined;
    case 'Redis SIGKILL':
      await targets.restartRedisAfterKill();
      return undefined;
  }
}
