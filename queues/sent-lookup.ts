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
 * `absent` once `settleMs` have passed since the earlier intent, else `pending` for the rest of
 * that time. Before then, a send begun at `intent.since` may still be on its way to the provider
 * (a worker paused, not dead, or a provider slow to list what it took), so not finding it yet
 * proves nothing.
 *
 * @param settleMs - How long after an intent a message sent under it is sure to show: the
 *   provider call's timeout plus the provider's own delay in listing it, in milliseconds.
 * @param now - Epoch milliseconds. Default `Date.now()`.
 */
export function absentOnceSettled(intent: SendIntent, settleMs: number, now = Date.now()): SentLookup {
  const age = now - intent.since;
  if (age >= settleMs) return { kind: 'absent' };
  return {
    kind: 'pending',
    retryAfterMs: settleMs - age,
    reason: `the earlier send began ${String(Math.max(0, age))} ms ago and may not show for ${String(settleMs)} ms`,
  };
}
