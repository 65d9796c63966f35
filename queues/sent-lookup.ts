/**
 * Helpers for a channel's `findSent` (see `ChannelSender.findSent`): the tag a provider call
 * carries so that the message can be found again, and the rule that an earlier send is only taken
 * for absent once it has had time to show. Free of BullMQ, for channel code.
 */
import { sha256Hex } from './job-ids.ts';
import type { SendIntent, SentLookup } from './outbound-types.ts';

/**
 * The tag of a delivery that a provider call carries where the provider echoes a field back (Slack
 * message metadata, the Graph API's `biz_opaque_callback_data`): the hex SHA-256 of the idempotency
 * key, 64 characters, so the key itself (which names the destination) never leaves the service.
 */
export function deliveryTag(idempotencyKey: string): string {
  return sha256Hex(idempotencyKey);
}

/**
 * How long after an attempt's process went silent (found dead, see `SendIntent.silentSince`) a
 * message it sent to the provider itself is sure to be listed, in ms: the provider's own delay in
 * listing what it took, with a wide margin. Nothing can still be on its way from a process that is
 * gone. Not for a send another process makes on the attempt's behalf (a relay).
 */
export const SILENT_SETTLE_MS = 10_000;

/**
 * `absent` once the earlier intent had time to show, else `pending` for the rest of that time:
 * `settleMs` after the intent, or `afterSilenceMs` after its process went silent when that is
 * known and comes first. Before then, a send begun at `intent.since` may still be on its way to
 * the provider (a worker paused, not dead, or a provider slow to list what it took), so not
 * finding it yet proves nothing.
 *
 * @param settleMs - How long after an intent a message sent under it is sure to show: the
 *   provider call's timeout plus the provider's own delay in listing it, in milliseconds.
 * @param options.afterSilenceMs - For a sender that calls the provider itself: how long after its
 *   process went silent a message it sent is sure to show (usually {@link SILENT_SETTLE_MS}).
 *   Unset, only `settleMs` counts.
 * @param options.now - Epoch milliseconds. Default `Date.now()`.
 */
export function absentOnceSettled(intent: SendIntent, settleMs: number, options: { readonly afterSilenceMs?: number; readonly now?: number } = {}): SentLookup {
  const now = options.now ?? Date.now();
  const { silentSince } = intent;
  const afterSilence = silentSince === undefined || options.afterSilenceMs === undefined ? Number.POSITIVE_INFINITY : silentSince + options.afterSilenceMs;
  const settledAt = Math.min(intent.since + settleMs, afterSilence);
  if (now >= settledAt) return { kind: 'absent' };
  return {
    kind: 'pending',
    retryAfterMs: settledAt - now,
    reason: `the earlier send began ${String(Math.max(0, now - intent.since))} ms ago and may not show for ${String(settledAt - intent.since)} ms`,
  };
}
