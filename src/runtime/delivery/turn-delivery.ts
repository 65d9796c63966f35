import { dropReason } from '../../protocol/envelope/delivery-filter.ts';
import type { Transport } from '../../protocol/envelope/delivery-filter.ts';
import type { ErrorCode } from '../../protocol/errors.ts';
import type { Part, DeliveryClass } from '../../protocol/parts/part.ts';
import type { PartTypeRegistry } from '../../protocol/parts/part-type-registry.ts';
import type { TurnOutput } from '../actor/turn-output.ts';
import { mayDecide } from '../approvals/approval-authority.ts';
import type { ApprovalStore } from '../approvals/approval-types.ts';
import type { Destination } from '../injection.ts';
import { createLiveSignalPacer, type LiveSignalPacer } from './live-signals.ts';
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

/** What a peer destination (another agent) accepts: the part types its Agent Card lists. */
export interface PeerConsumes {
  /** Part types of the Beach extension's `envelopeConsumes`; empty for a non-Beach peer. */
  readonly envelopeConsumes: readonly string[];
}

/** How a channel takes deliveries. */
export interface ChannelDelivery {
  /** Streaming channels get parts as they arrive; buffered ones the envelope at settlement. */
  readonly deliveryClass: DeliveryClass;
  /**
   * For a channel whose destinations are peer agents (A2A): what the peer behind `destination`
   * consumes, or `undefined` when the destination is not a peer. A peer gets a part type with
   * `requiresPeerConsumes` (`llm-context`, `a2ui-surface`, ...) only when it lists it, and the
   * settlement makes `llm-context` only when it lists `llm-context`. Called once per delivered
   * part and once at settlement, so it should be cheap (configuration, not a network call).
   * Default: no destination is a peer.
   */
  readonly peer?: (destination: Destination) => Promise<PeerConsumes | undefined>;
  /**
   * Sends one delivery. Streaming channels of our own (the web chat's Redis stream) send directly,
   * in order; external providers enqueue on their outbound queue.
   */
  readonly deliver: (delivery: Delivery) => Promise<void>;
  /**
   * True when `deliver` only writes to Redis, over the connection the turn's log and record are
   * written on (the web chat's stream): Redis runs commands of one connection in the order they
   * were sent, so a delivery is sent together with the log's flush instead of after its reply
   * (one round trip less before a part shows), and still lands after it. Default false: the
   * flush is acknowledged before `deliver` is called.
   */
  readonly writesInOrder?: boolean;
  /**
   * For a streaming channel that sends through a provider: live signals (parts a buffered
   * transport drops, e.g. `ack` shown as a status) are held until the turn has run this long, in
   * milliseconds, and dropped when a message of the turn goes first (see `live-signals.ts`).
   * Default: sent at once.
   */
  readonly signalDelayMs?: number;
}

/** The parts of a settled turn for a buffered channel, or for a streaming channel's last flush. */
export interface Settlement {
  /** Parts to deliver at settlement, in order (the envelope's, already filtered for the transport). */
  readonly parts: readonly { readonly partId: string; readonly part: Part }[];
  /** The whole envelope, for buffered channels that render it. */
  readonly envelope?: Readonly<Record<string, unknown>>;
  /**
   * What became of `llm-context`, present only when the destination is a peer that asked for it;
   * logged as an `llm_context` entry of the session's event log.
   */
  readonly llmContext?: LlmContextReport;
}

/**
 * What became of a settled turn's `llm-context` for a peer that asked for it: `translated` by the
 * translator (`durationMs`: how long it took, in ms; near 0 when the turn's translation was cached),
 * `failed` (the envelope went without it; `code` and `message` say why), given by the actor
 * (`actor-provided`), not made because no translator is configured (`no-translator`), or because
 * the turn had neither a response text nor data (`nothing-to-translate`).
 */
export type LlmContextReport =
  | { readonly status: 'translated'; readonly durationMs: number }
  | { readonly status: 'failed'; readonly code: ErrorCode; readonly message: string; readonly durationMs: number }
  | { readonly status: 'actor-provided' | 'no-translator' | 'nothing-to-translate' };

/** Options of {@link createTurnDelivery}. */
export interface TurnDeliveryOptions {
  readonly partTypes: PartTypeRegistry;
  /** Delivery per channel id. A destination on a channel not listed here is logged and skipped. */
  readonly channels: ReadonlyMap<string, ChannelDelivery>;
  /**
   * Builds what a settled turn delivers on a transport (the envelope, filtered); `transport.peer`
   * is set when the destination is a peer (see {@link ChannelDelivery.peer}).
   */
  readonly settle: (turn: TurnRecord, turnState: string, transport: Transport) => Promise<Settlement>;
  readonly log: EventLog;
  /**
   * Where approval records are read, so an `approval-request` part reaches the turn's own
   * conversation as an `approval-request` render input with its record (a channel then shows it as
   * it shows approvers the request: an email with its own Message-ID, a message with buttons).
   * Default: none, and the part is rendered as a part.
   */
  readonly approvals?: Pick<ApprovalStore, 'get'>;
  /** Receives the errors of held live signals sent later (they have no caller). Default: ignored. */
  readonly onError?: (error: Error) => void;
}

function destinationKey(destination: Destination): string {
  return `${destination.channel}:${destination.address}`;
}

/**
 * The transport of a destination on `channel`: its id, class, and the peer's consumes when a peer.
 * Answered at once (no promise) on a channel that has no peers, as most have.
 */
function transportOf(destination: Destination, channel: ChannelDelivery): Transport | Promise<Transport> {
  const transport = { id: destination.channel, deliveryClass: channel.deliveryClass };
  if (channel.peer === undefined) return transport;
  return channel.peer(destination).then((peer) => (peer === undefined ? transport : { ...transport, peer: { envelopeConsumes: peer.envelopeConsumes } }));
}

/**
 * The runtime's {@link TurnOutput}: applies each part type's delivery rule for the destination's
 * transport class. Streaming channels get `flush` and `stream` parts at once and the rest of the
 * envelope at settlement; buffered channels get `flush` parts at once (clarify, error, approval
 * requests) and the envelope at settlement. A part goes out at once only when the delivery filter
 * (`dropReason`) lets it through the destination's transport, so a peer never gets a part type with
 * `requiresPeerConsumes` it does not consume. Every delivery carries a key unique to (turn, part,
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
    // What the turn logged so far (and the writes the log holds) is written before anything it
    // records leaves the process: on the same connection, in order; elsewhere, acknowledged first.
    // A write that already failed stops the delivery before it is sent, as its answer would.
    if (channel.writesInOrder === true) log.checkHeld?.(turn.sessionId);
    const written = log.flush?.(turn.sessionId);
    const deliver = (): Promise<void> => channel.deliver({ channel: turn.replyTo.channel, destination: turn.replyTo, trace: { sessionId: turn.sessionId, turnId: turn.turnId }, ...delivery });
    if (channel.writesInOrder === true) await Promise.all([written, deliver()]);
    else {
      await written;
      await deliver();
    }
    await log.append(turn.sessionId, { type: 'delivery', turnId: turn.turnId, data: { channel: turn.replyTo.channel, key: delivery.idempotencyKey } });
  };

  const pacers = new Map<string, LiveSignalPacer>();
  const pacerOf = (channelId: string, channel: ChannelDelivery): LiveSignalPacer | undefined => {
    if (channel.signalDelayMs === undefined) return undefined;
    let pacer = pacers.get(channelId);
    if (pacer === undefined) {
      pacer = createLiveSignalPacer({ delayMs: channel.signalDelayMs, onError: options.onError ?? (() => undefined) });
      pacers.set(channelId, pacer);
    }
    return pacer;
  };
  /** A live signal: a part sent at once on a streaming transport that a buffered one drops. */
  const isSignal = (part: Part): boolean => {
    const rules = partTypes.get(part.metadata.partType)?.deliveryRules;
    return rules?.buffered === 'drop' && (rules.streaming === 'flush' || rules.streaming === 'stream');
  };
  /** Without the pacer's memory (a resumed turn): whether the last part the turn sent at once was a signal. */
  const endsOnSignal = (turn: TurnRecord): boolean => {
    const sent = turn.emitted.filter(({ part }) => immediate('streaming', part));
    const last = sent.at(-1);
    return last !== undefined && isSignal(last.part);
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
    // The turn's own conversation is the requester's: they are told how to decide only when they may.
    if (record !== undefined) return { type: 'approval-request', record, partId: emitted.partId, part: emitted.part, mayDecide: mayDecide(record, record.requester) };
    return { type: 'part', turnId: turn.turnId, partId: emitted.partId, turnState: emitted.turnState, actor: emitted.actor, part: emitted.part };
  };

  return {
    async part(turn: TurnRecord, emitted: EmittedPart) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel === undefined) return;
      if (!immediate(channel.deliveryClass, emitted.part)) return;
      const reason = dropReason(emitted.part, await transportOf(turn.replyTo, channel), partTypes);
      if (reason === 'peer-not-consuming') {
        await log.append(turn.sessionId, {
          type: 'delivery',
          turnId: turn.turnId,
          data: { skipped: reason, channel: turn.replyTo.channel, partId: emitted.partId, partType: emitted.part.metadata.partType },
        });
      }
      if (reason !== undefined) return;
      const delivery = async (): Promise<void> => {
        await send(turn, { idempotencyKey: `${emitted.partId}|${destinationKey(turn.replyTo)}`, payload: await partInput(turn, emitted) });
      };
      const pacer = pacerOf(turn.replyTo.channel, channel);
      if (pacer === undefined) {
        await delivery();
        return;
      }
      if (isSignal(emitted.part)) return pacer.signal(turn, delivery);
      await pacer.message(turn.turnId);
      await delivery();
    },

    async state(turn: TurnRecord, turnState: string, actor: string) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel?.deliveryClass !== 'streaming') return;
      const pacer = pacerOf(turn.replyTo.channel, channel);
      const showing = pacer === undefined ? undefined : (pacer.showing(turn.turnId) ?? endsOnSignal(turn));
      await send(turn, {
        idempotencyKey: `${turn.turnId}.state.${turn.step}.${turnState}|${destinationKey(turn.replyTo)}`,
        payload: { type: 'turn', turnId: turn.turnId, turnState, actor, ...(showing === undefined ? {} : { signalShowing: showing }) },
      });
    },

    async settle(turn: TurnRecord, turnState: string) {
      const channel = channels.get(turn.replyTo.channel);
      if (channel === undefined) return;
      const settlement = await options.settle(turn, turnState, await transportOf(turn.replyTo, channel));
      if (settlement.llmContext !== undefined) {
        await log.append(turn.sessionId, { type: 'llm_context', turnId: turn.turnId, data: settlement.llmContext });
      }
      if (channel.deliveryClass === 'streaming') {
        const pacer = pacerOf(turn.replyTo.channel, channel);
        if (settlement.parts.length > 0) await pacer?.message(turn.turnId);
        const showing = pacer === undefined ? undefined : (pacer.showing(turn.turnId) ?? endsOnSignal(turn));
        pacer?.forget(turn.turnId);
        for (const { partId, part } of settlement.parts) {
          await send(turn, {
            idempotencyKey: `${partId}|${destinationKey(turn.replyTo)}`,
            payload: { type: 'part', turnId: turn.turnId, partId, turnState, actor: turn.actor, part },
          });
        }
        await send(turn, {
          idempotencyKey: `${turn.turnId}.settled|${destinationKey(turn.replyTo)}`,
          payload: { type: 'turn', turnId: turn.turnId, turnState, actor: turn.actor, settled: true, ...(showing === undefined ? {} : { signalShowing: showing }) },
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
