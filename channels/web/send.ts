/**
 * The outbound sender of the web chat channel: a delivery to the web is an append to the
 * conversation's event stream, from which the page's SSE connection picks it up.
 */

import type { Destination } from '../../src/runtime/injection.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import { isConversationId } from './conversation-id.ts';
import { surfaceIdOf, type DeliveredSurfaces } from './delivered-surfaces.ts';
import { checkWebChatEvent } from './stream/chat-event.ts';
import type { WebEventStore } from './stream/event-store.ts';
import type { EchoOrder } from './echo-order.ts';

/** One delivery to the web channel. */
export interface WebDelivery {
  readonly channel: 'web';
  /** `address` is the web conversation id. */
  readonly destination: Destination;
  /** Stable per (turn, part): a retried delivery with the same key is stored once. */
  readonly idempotencyKey: string;
  /** A {@link WebChatEvent}, checked before it is stored. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Sends deliveries to web chat conversations. */
export interface WebSender {
  /**
   * Appends the payload to the conversation's stream. Resolves with the stream entry id as
   * `providerId` (the first entry's id for a repeated idempotency key). Throws
   * `SwitchboardError('delivery.failed')`: with `details.permanent: true` for a delivery that can
   * never succeed (bad address or payload), retryable otherwise (Redis unreachable).
   */
  send(delivery: WebDelivery): Promise<{ providerId: string }>;
}

/** Options of {@link createWebSender}. */
export interface WebSenderOptions {
  /**
   * Where the surface id of each `a2ui-surface` part is recorded before the part is stored (so the
   * page can never press a Button of a surface the record does not know yet). Default: not recorded.
   */
  readonly surfaces?: DeliveredSurfaces;
  /**
   * The echoes the message route owes: a delivery to a conversation waits until the echo of a
   * message posted there was sent, so a turn's parts come after the message that started it
   * (see `echo-order.ts`). Default: none waited for.
   */
  readonly echoes?: EchoOrder;
}

/**
 * Creates the web channel's sender over an event store.
 *
 * @example
 * const sender = createWebSender(store, { surfaces });
 * await sender.send({ channel: 'web', destination: { channel: 'web', address: 'c1' },
 *   idempotencyKey: 'turn-1:part-0', payload: { type: 'turn', turnId: 'turn-1', turnState: 'complete' } });
 */
export function createWebSender(store: WebEventStore, options: WebSenderOptions = {}): WebSender {
  return {
    async send(delivery) {
      const conversationId = delivery.destination.address;
      const refuse = (problem: string): SwitchboardError =>
        new SwitchboardError('delivery.failed', `Web delivery refused: ${problem}.`, {
          details: { permanent: true, channel: 'web', conversationId, idempotencyKey: delivery.idempotencyKey },
        });
      if ((delivery.channel as string) !== 'web' || delivery.destination.channel !== 'web') throw refuse('not addressed to the web channel');
      if (!isConversationId(conversationId)) throw refuse('the address is not a web conversation id');
      if (delivery.idempotencyKey.length === 0) throw refuse('the idempotency key is empty');
      const check = checkWebChatEvent(delivery.payload);
      if (!check.ok) throw refuse(`malformed payload (${check.problem})`);
      const surfaceId = surfaceIdOf(check.event);
      const echo = options.echoes?.sent(conversationId);
      if (echo !== undefined) await echo;
      try {
        if (surfaceId !== undefined) await options.surfaces?.record(conversationId, surfaceId);
        const { id } = await store.append(conversationId, check.event, delivery.idempotencyKey);
        return { providerId: id };
      } catch (error) {
        throw new SwitchboardError('delivery.failed', 'Could not store the web chat event.', {
          cause: error,
          retryable: true,
          details: { permanent: false, channel: 'web', conversationId, idempotencyKey: delivery.idempotencyKey },
        });
      }
    },
  };
}
