/**
 * Finds a Cloud API message whose send had no recorded outcome. Meta keeps no list of sent
 * messages, but every send carries the delivery's tag as `biz_opaque_callback_data`, and Meta
 * echoes it in the message's status webhooks, whose tags the status store keeps (`statuses.ts`).
 * A tag seen there is a message Meta took. None seen: the look-up waits up to `settleMs` after the
 * intent for a late webhook, then says it cannot tell (the channel's rule applies: at most once).
 */
import { deliveryTag } from '../../../queues/sent-lookup.ts';
import type { SendIntent, SentLookup } from '../../../queues/outbound-types.ts';
import type { CloudStatuses } from './statuses.ts';

/** How long after an intent a status webhook of a message Meta took is expected, in ms. */
export const CLOUD_SETTLE_MS = 60_000;

/** Options of {@link createCloudFindSent}. */
export interface CloudFindSentOptions {
  readonly statuses: Pick<CloudStatuses, 'wamidOfTag'>;
  /** See {@link CLOUD_SETTLE_MS}; in ms. Default {@link CLOUD_SETTLE_MS}. */
  readonly settleMs?: number;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

/** Creates the Cloud transport's look-up. */
export function createCloudFindSent(options: CloudFindSentOptions): (idempotencyKey: string, intent: SendIntent) => Promise<SentLookup> {
  const settleMs = options.settleMs ?? CLOUD_SETTLE_MS;
  const now = options.now ?? Date.now;
  return async (idempotencyKey, intent) => {
    const wamid = await options.statuses.wamidOfTag(deliveryTag(idempotencyKey));
    if (wamid !== undefined) return { kind: 'sent', receipt: { providerMessageId: wamid, details: { via: 'cloud', foundBy: 'status webhook' } } };
    const age = now() - intent.since;
    if (age < settleMs) return { kind: 'pending', retryAfterMs: settleMs - age, reason: `no status webhook of the earlier send yet (${String(Math.max(0, age))} ms after it began)` };
    return { kind: 'unknown', reason: 'Meta keeps no list of sent messages, and no status webhook carried this message\'s tag' };
  };
}
