/**
 * The `inspect:` settings of `switchboard.yaml` with their defaults filled: whether whole model
 * calls are captured, how long captures live, and the price list that costs each call.
 */
import type { InspectFile } from '../app/app-types.ts';
import { DEFAULT_CAPTURE_RETENTION_DAYS } from './capture-store.ts';
import { createPriceList, type PriceList } from './model-prices.ts';

/** What the inspector keeps, decided. */
export interface InspectSettings {
  /** Whether whole model calls are captured. */
  readonly capture: boolean;
  /** How long captures live, in days. */
  readonly retentionDays: number;
  /** The built-in prices with the app's overrides. */
  readonly prices: PriceList;
}

/**
 * The settings of `file`: `capture` as written, else on exactly when the service runs its own
 * Redis (`embeddedRedis`: `npm start` without `REDIS_URL`, a developer's machine) and off against
 * an outside one (production); `retentionDays` default 7; `prices` over the built-in table.
 */
export function resolveInspectSettings(file: InspectFile | undefined, embeddedRedis: boolean): InspectSettings {
  return {
    capture: file?.capture ?? embeddedRedis,
    retentionDays: file?.retentionDays ?? DEFAULT_CAPTURE_RETENTION_DAYS,
    prices: createPriceList(file?.prices ?? {}),
  };
}
