/**
 * Wires every enabled channel the same way: creates its adaptor, mounts its routes, renders and
 * sends what the runtime gives it (directly, or through its outbound queue), and runs its listener
 * (under a singleton lease when it has one). `create-service.ts` calls this once; it does not
 * change when a channel is added.
 */
import { SwitchboardError } from '../src/protocol/errors.ts';
import type { ChannelAdaptor, ChannelContext, ChannelListener, ChannelModule, RunningListener } from '../channels/channel.ts';
import type { ChannelRateLimit, ChannelSender, OutboundDelivery } from '../queues/outbound-types.ts';
import type { ChannelRoute, SendLimits, SendRate } from '../src/runtime/app/app-types.ts';
import type { ChannelDelivery, Delivery } from '../src/runtime/delivery/turn-delivery.ts';
import type { RenderInput } from '../src/runtime/delivery/render-input.ts';
import type { Route } from '../src/runtime/http/router.ts';
import type { Destination } from '../src/runtime/injection.ts';

/** The outbound queues as the wiring needs them (see `queues/outbound-queue.ts`). */
export interface OutboundPort {
  /** Sends at once when it can, else enqueues (see `Outbound.deliver`). */
  deliver(delivery: OutboundDelivery): Promise<unknown>;
  startWorkers(): void;
  close(): Promise<void>;
}

/** Runs a singleton listener under a lease (see `channels/kit/lease`). */
export type SingletonRunner = (key: string, listener: ChannelListener) => RunningListener;

/** Options of {@link wireChannels}. */
export interface ChannelWiringOptions {
  readonly modules: readonly ChannelModule[];
  readonly context: ChannelContext;
  /** Creates the outbound queues for the channels that send through one. */
  readonly createOutbound: (senders: Readonly<Record<string, ChannelSender>>) => OutboundPort;
  readonly runSingleton: SingletonRunner;
  /**
   * How long a turn runs before its live signals (e.g. a Slack thread status) are sent on a
   * provider's streaming channel, in milliseconds. Default 1000.
   */
  readonly signalDelayMs?: number;
}

/** The wired channels of one process. */
export interface WiredChannels {
  readonly adaptors: ReadonlyMap<string, ChannelAdaptor>;
  /** Every channel's HTTP routes. */
  readonly routes: readonly Route[];
  /** Turn output per channel id, for the turn delivery. */
  readonly deliveries: ReadonlyMap<string, ChannelDelivery>;
  /**
   * Renders `input` for `destination` and sends it on the destination's channel; each message's
   * key is `idempotencyKey` (`#n` appended when the render gives several). Resolves `false` when
   * no enabled channel serves the destination.
   */
  send(destination: Destination, input: RenderInput, idempotencyKey: string, trace?: Delivery['trace']): Promise<boolean>;
  /** Starts the outbound workers and the listeners (worker roles). */
  start(): void;
  /** Stops listeners and workers and closes every adaptor. */
  close(): Promise<void>;
}

/** The app's route of `channel`, when the app has one. */
function routeOf(context: ChannelContext, channel: string): ChannelRoute | undefined {
  const routes: Readonly<Record<string, ChannelRoute>> = context.app.channels;
  return Object.hasOwn(routes, channel) ? routes[channel] : undefined;
}

/** `sender` with the limits `switchboard.yaml` sets for its channel in place of its own. */
export function withSendLimits(sender: ChannelSender, limits: SendLimits | undefined, channel: string): ChannelSender {
  if (limits === undefined) return sender;
  const rate = (value: SendRate): ChannelRateLimit => ({ max: value.max, durationMs: Math.round(value.perSeconds * 1000) });
  return {
    ...sender,
    ...(limits.perConversation === undefined ? {} : { destinationRateLimit: rate(limits.perConversation) }),
    ...(limits.perChannel === undefined ? {} : { rateLimit: rate(limits.perChannel) }),
    ...(limits.perMethod === undefined ? {} : { methodRateLimits: methodLimits(sender, limits.perMethod, channel, rate) }),
    ...(limits.concurrency === undefined ? {} : { concurrency: limits.concurrency }),
  };
}

/** The sender's method limits with those of `perMethod` in their place; an unknown method is an error. */
function methodLimits(sender: ChannelSender, perMethod: Readonly<Record<string, SendRate>>, channel: string, rate: (value: SendRate) => ChannelRateLimit): Readonly<Record<string, ChannelRateLimit>> {
  const known = sender.methodRateLimits ?? {};
  const limits: Record<string, ChannelRateLimit> = { ...known };
  for (const [method, value] of Object.entries(perMethod)) {
    if (!Object.hasOwn(known, method)) {
      const names = Object.keys(known);
      const hint = names.length === 0 ? 'it has no per-method limits' : `its methods are ${names.join(', ')}`;
      throw new SwitchboardError('config.invalid', `switchboard.yaml channels.${channel}.sendLimits.perMethod names "${method}", which the ${channel} channel does not limit: ${hint}.`, { details: { channel, method } });
    }
    limits[method] = rate(value);
  }
  return limits;
}

/** Creates the enabled channels and wires them. */
export async function wireChannels(options: ChannelWiringOptions): Promise<WiredChannels> {
  const { context } = options;
  const adaptors = new Map<string, ChannelAdaptor>();
  for (const module of options.modules) {
    if (!module.enabled(context.env)) continue;
    try {
      adaptors.set(module.id, await module.create(context));
    } catch (error) {
      // The channels made so far are closed: a channel that cannot start leaves nothing open.
      for (const made of adaptors.values()) await made.close().catch(() => undefined);
      throw new SwitchboardError('channel.unavailable', `The ${module.id} channel could not start: ${error instanceof Error ? error.message : String(error)} (check ${module.envVariables.join(', ')}).`, { cause: error, details: { channel: module.id } });
    }
  }
  let queued: Record<string, ChannelSender>;
  try {
    queued = Object.fromEntries([...adaptors.values()].filter((adaptor) => adaptor.outbound === 'queue').map((adaptor) => [adaptor.id, withSendLimits(adaptor.sender, routeOf(context, adaptor.id)?.sendLimits, adaptor.id)]));
  } catch (error) {
    for (const made of adaptors.values()) await made.close().catch(() => undefined);
    throw error;
  }
  const outbound = Object.keys(queued).length === 0 ? undefined : options.createOutbound(queued);
  const running: RunningListener[] = [];

  const send = async (destination: Destination, input: RenderInput, idempotencyKey: string, trace?: Delivery['trace']): Promise<boolean> => {
    const adaptor = adaptors.get(destination.channel);
    if (adaptor === undefined) return false;
    const messages = adaptor.render(input, destination);
    for (const [index, payload] of messages.entries()) {
      const delivery: OutboundDelivery = {
        channel: adaptor.id,
        destination,
        idempotencyKey: messages.length === 1 ? idempotencyKey : `${idempotencyKey}#${index + 1}`,
        payload,
        ...(trace === undefined ? {} : { trace }),
      };
      if (adaptor.outbound === 'direct' || outbound === undefined) await adaptor.sender.send(delivery);
      else await outbound.deliver(delivery);
    }
    return true;
  };

  const deliveries = new Map<string, ChannelDelivery>(
    [...adaptors.values()].map((adaptor) => [
      adaptor.id,
      {
        deliveryClass: adaptor.transport,
        // A provider's live view (a thread status) shows signals only for turns that take a while.
        ...(adaptor.transport === 'streaming' && adaptor.outbound === 'queue' ? { signalDelayMs: options.signalDelayMs ?? 1000 } : {}),
        ...(adaptor.peerOf === undefined ? {} : { peer: adaptor.peerOf.bind(adaptor) }),
        ...(adaptor.outbound === 'direct' && adaptor.writesInOrder === true ? { writesInOrder: true } : {}),
        deliver: async (delivery) => {
          await send(delivery.destination, delivery.payload, delivery.idempotencyKey, delivery.trace);
        },
      },
    ]),
  );

  return {
    adaptors,
    routes: [...adaptors.values()].flatMap((adaptor) => adaptor.routes),
    deliveries,
    send,
    start() {
      outbound?.startWorkers();
      for (const adaptor of adaptors.values()) {
        const { listener } = adaptor;
        if (listener === undefined) continue;
        if (listener.singletonKey === undefined) {
          const started = listener.start(undefined).catch((error: unknown) => {
            context.logger.error({ err: error, channel: adaptor.id }, 'channel listener failed to start');
            return undefined;
          });
          running.push({ stop: async () => { await (await started)?.stop(); } });
        } else {
          running.push(options.runSingleton(`${adaptor.id}:${listener.singletonKey}`, listener));
        }
      }
    },
    async close() {
      for (const listener of running) await listener.stop();
      await outbound?.close();
      for (const adaptor of adaptors.values()) await adaptor.close();
    },
  };
}
