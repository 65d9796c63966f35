import type { Part, DeliveryClass } from '../../protocol/parts/part.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { TurnOutput } from '../actor/turn-output.ts';
import type { ApprovalStore } from '../approvals/approval-types.ts';
import type { Destination } from '../injection.ts';
import type { RenderInput } from './render-input.ts';
import type { EventLog } from '../session/event-log.ts';
import type { EmittedPart, TurnRecord } from '../session/turn-record.ts';

/** One outbound delivery: what goes to one destination, with its idempotency key. */
export interface Delivery {
  readonly channel: string;
  readonly destination: Destination;
  /** Unique per (turn, part, destination): a retry with the same key never sends twice. */
  readonly idempotencyKey: string;
  /** What to render for the destination. */
  readonly payload: RenderInput;
  /** The session and turn it belongs to, for the session's event log. */
  readonly trace?: { readonly sessionId: string; readonly turnId?: string };
}

/** How a channel takes deliveries. */
export interface ChannelDelivery {
  /** Streaming channels get parts as they arrive; buffered ones the envelope at settlement. */
  readonly deliveryClass: DeliveryClass;
  /**
   * Sends one delivery. Streaming channels of our own (the web chat's Redis stream) send directly,
   * in order; external providers enqueue on their outbound queue.
   */
  readonly deliver: (delivery: Delivery) => Promise<void>;
}

/** The parts of a settled turn for a buffered channel, or for a streaming channel's last flush. */
export interface Settlement {
  /** Parts to deliver at settlement, in order (the envelope's, already filtered for the transport). */
  readonly parts: readonly { readonly partId: string; readonly part: Part }[];
  /** The whole envelope, for buffered channels that render it. */
  readonly envelope?: Readonly<Record<string, unknown>>;
}

/** Options of {@link createTurnDelivery}. */
export interface TurnDeliveryOptions {
  readonly partTypes: PartTypeRegistry;
  /** Delivery per channel id. A destination on a channel not listed here is logged and skipped. */
  readonly channels: ReadonlyMap<string, ChannelDelivery>;
  /** Builds what a settled turn delivers on a transport class (the envelope, filtered). */
  readonly settle: (turn: TurnRecord, turnState: string, transport: { id: string; deliveryClass: DeliveryClass }) => Promise<Settlement>;
  readonly log: EventLog;
  /**
   * Where approval records are read, so an `approval-request` part reaches the turn's own
   * conversation as an `approval-request` render input with its record (a channel then shows it as
   * it shows approvers the request: an email with its own Message-ID, a message with buttons).
   * Default: none, and the part is rendered as a part.
   */
  readonly approvals?: Pick<ApprovalStore, 'get'>;
}

function destinationKey(destination: Destination): string {
  return `${destination.channel}:${destination.address}`;
}

function allowedOn(partTypes: PartTypeRegistry, part: Part, channel: string): boolean {
  const definition = partTypes.get(part.metadata.partType);
  if (definition === undefined) return false;
  return definition.allowedTransports === undefined || definition.allowedTransports.includes(channel);
}

/**
 * The runtime's {@link TurnOutput}: applies each part type's delivery rule for the destination's
 * transport class. Streaming channels get `flush` and `stream` parts at once and the rest of the
 * envelope at settlement; buffered channels get `flush` parts at once (clarify, error, approval
 * requests) and the envelope at settlement. Every delivery carries a key unique to (turn, part,
 * destination).
 */
export function createTurnDelivery(options: TurnDeliveryOptions): TurnOutput {
  const { partTypes, channels, log } = options;

  const send = async (turn: TurnRecord, delivery: Omit<Delivery, 'channel' | 'destination'>): Promise<void> => {
    const channel = channels.get(turn.replyTo.channel);
    if (channel === undefined) {
      await log.append(turn.sessionId, { type: 'delivery', turnId: turn.turnId, data: { skipped: 'no such channel', channel: turn.replyTo.channel } });
      return;
    }
    // What the turn logged so far is written before anything it records leaves the process.
    await log.flush?.(turn.sessionId);
    await channel.deliver({ channel: turn.replyTo.channel, destination: turn.replyTo, trace: { sessionId: turn.sessionId, turnId: turn.turnId }, ...delivery });
    await log.append(turn.sessionId, { type: 'delivery', turnId: turn.turnId, data: { channel: turn.replyTo.channel, key: delivery.idempotencyKey } });
  };

  const immediate = (deliveryClass: DeliveryClass, part: Part): boolean => {
    const rules = partTypes.get(part.metadata.partType)?.deliveryRules;
    if (rules === undefined) return false;
    return deliveryClass === 'streaming' ? rules.streaming === 'flush' || rules.streaming === 'stream' : rules.buffered === 'flush';
  };

  /** What an emitted part is rendered from: the approval record for an approval request, else the part. */
  const partInput = async (turn: TurnRecord, emitted: EmittedPart): Promise<RenderInput> => {
    const approvalId = emitted.part.metadata.partType === 'approval-request' ? emitted.part.data?.['approvalId'] : undefined;
    const record = typeof approvalId === 'string' ? await options.approvals?.get(approvalId) : undefined;
    if (record !== undefined) return { type: 'approval-request', record, partId: emitted.partId, part: emitted.part };
    return { type: 'part', turnId: turn.turnId, partId: emitted.partId, turnState: emitted.turnState, actor: emitted.actor, part: emitted.part };
  };

  return {
    async part(turn: TurnRecord, emitted: EmittedPart) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel === undefined) return;
      if (!immediate(channel.deliveryClass, emitted.part) || !allowedOn(partTypes, emitted.part, turn.replyTo.channel)) return;
      await send(turn, { idempotencyKey: `${emitted.partId}|${destinationKey(turn.replyTo)}`, payload: await partInput(turn, emitted) });
    },

    async state(turn: TurnRecord, turnState: string, actor: string) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel?.deliveryClass !== 'streaming') return;
      await send(turn, {
        idempotencyKey: `${turn.turnId}.state.${turn.step}.${turnState}|${destinationKey(turn.replyTo)}`,
        payload: { type: 'turn', turnId: turn.turnId, turnState, actor },
      });
    },

    async settle(turn: TurnRecord, turnState: string) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel === undefined) return;
      const transport = { id: turn.replyTo.channel, deliveryClass: channel.deliveryClass };
      const settlement = await options.settle(turn, turnState, transport);
      if (channel.deliveryClass === 'streaming') {
        for (const { partId, part } of settlement.parts) {
          await send(turn, {
            idempotencyKey: `${partId}|${destinationKey(turn.replyTo)}`,
            payload: { type: 'part', turnId: turn.turnId, partId, turnState, actor: turn.actor, part },
          });
        }
        await send(turn, {
          idempotencyKey: `${turn.turnId}.settled|${destinationKey(turn.replyTo)}`,
          payload: { type: 'turn', turnId: turn.turnId, turnState, actor: turn.actor },
        });
        return;
      }
      if (settlement.parts.length === 0) return;
      await send(turn, {
        idempotencyKey: `${turn.turnId}.envelope|${destinationKey(turn.replyTo)}`,
        payload: { type: 'envelope', turnId: turn.turnId, turnState, parts: settlement.parts.map(({ part }) => part), ...(settlement.envelope === undefined ? {} : { envelope: settlement.envelope }) },
      });
    },
  };
}
