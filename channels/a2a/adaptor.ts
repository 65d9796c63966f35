/**
 * How the `a2a` channel's parts fit: the A2A server (the SDK's request handler over a Redis task
 * store and event bus), the MCP server and the webhook reply for known peers, and the sender that
 * writes each turn's output to its task. Loaded only when the channel is created.
 */
import type { ChannelAdaptor, ChannelContext } from '../channel.ts';
import { serviceAgentCard } from '../../src/runtime/app/service-agent-card.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import { createRedisEventBusManager } from './event-bus.ts';
import { createA2aExecutor } from './executor.ts';
import { createA2aRoutes, type PeerGate } from './inbound.ts';
import { normalisePeerMessage, type PeerMessage } from './normalise.ts';
import { createPeerAuth } from './peer-auth.ts';
import { createPeerCards } from './peer-cards.ts';
import { createPeerMessages } from './peer-messages.ts';
import { createPeerRate } from './peer-rate.ts';
import { PeerRequestHandler } from './peer-request-handler.ts';
import { createPeerTurns } from './peer-turns.ts';
import { renderA2a, taskOf } from './render.ts';
import { sendToTask } from './send.ts';
import { createTaskLog } from './task-log.ts';
import { createMcpRoutes } from './mcp-route.ts';
import { createTurnsRoutes } from './turns-route.ts';
import type { LoadedApp } from '../../src/runtime/app/app-types.ts';
import { createRedisTaskStore } from './task-store.ts';

/** Options of the `a2a` channel beyond its context. */
export interface A2aChannelOptions {
  /** Calls one peer may make per window, and the window in ms (default 600 a minute). */
  readonly rate?: { readonly max?: number; readonly windowMs?: number };
  /** The fetch used to read peers' Agent Cards. Default the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** The actors that answer peers (each peer's, and the `a2a` route's), each once, as MCP tools. */
function peerActors(app: LoadedApp): { name: string; description: string }[] {
  const names = new Set([app.channels.a2a.actor, ...app.peers.map((peer) => peer.actor)]);
  return app.actors.filter((actor) => names.has(actor.name)).map((actor) => ({ name: actor.name, description: actor.systemPrompt.split('\n')[0] ?? actor.name }));
}

/** Creates the `a2a` channel's adaptor. */
export function createA2aAdaptor(context: ChannelContext, options: A2aChannelOptions = {}): ChannelAdaptor {
  const { redis, prefix, app } = context;
  const peers = app.peers;
  const log = createTaskLog({ redis, prefix });
  const buses = createRedisEventBusManager({ redis, log });
  const turns = createPeerTurns({ log, tenantId: context.tenantId, enqueue: (injection) => context.enqueue(injection), clock: context.clock, messages: createPeerMessages({ redis, prefix }) });
  const store = createRedisTaskStore(log);
  const executor = createA2aExecutor({ log, turns, wake: (key, reason) => context.wake('a2a', key, reason), created: (task, call) => { store.created(task, call); } });
  const requestHandler = new PeerRequestHandler(log, serviceAgentCard({ publicUrl: context.env.publicUrl, app }), store, executor, buses);
  const auth = createPeerAuth(peers);
  const rate = createPeerRate({ redis, prefix, ...options.rate });
  const gate: PeerGate = {
    authenticate: (header) => {
      const peer = auth.authenticate(header);
      return peer === undefined ? undefined : { id: peer.id, name: peer.name, actor: peer.actor };
    },
    retryAfterSeconds: (peerId) => rate.retryAfterSeconds(peerId),
  };
  const cards = createPeerCards({ fetch: options.fetch ?? fetch, clock: context.clock });
  const round = { log, redis };
  const peerById = new Map(peers.map((peer) => [peer.id, peer]));
  const peerOf = async (destination: Destination) => {
    const peer = peerById.get(destination.thread?.['peerId'] ?? '');
    return peer === undefined ? undefined : { envelopeConsumes: await cards.consumes(peer) };
  };
  return {
    id: 'a2a',
    transport: 'streaming',
    outbound: 'direct',
    routes: [
      ...createA2aRoutes({ requestHandler, gate }),
      ...createTurnsRoutes({ gate, log, turns, round, publicUrl: context.env.publicUrl }),
      ...createMcpRoutes({ gate, log, turns, round, publicUrl: context.env.publicUrl, registry: context.registry, actors: peerActors(app), tenantId: context.tenantId }),
    ],
    normalise: (event) => normalisePeerMessage(event as PeerMessage, context.tenantId),
    render: (input, destination) => renderA2a(input, destination).map((output) => ({ ...output })),
    sender: { send: (delivery) => sendToTask(log, delivery) },
    // A peer is never an approver: it reaches no approval request and no reply of its decides.
    approvals: { textReplies: false, destinationFor: () => undefined },
    midTurn: 'followup',
    stopRequested: (destination) => log.cancelRequested(taskOf(destination).taskId),
    peerOf,
    close: () => buses.close(),
  };
}
