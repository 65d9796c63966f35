/**
 * The authenticated peer as the A2A SDK sees it: a `User` whose name is the peer id, carried from
 * the route (which checked the bearer token) to the executor and the task store.
 */
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { PeerTransport } from './normalise.ts';

/** What the executor needs to know of the calling peer. */
export interface CallingPeer {
  readonly id: string;
  readonly name: string;
  /** The actor that answers this peer; default the `a2a` channel's route. */
  readonly actor?: string;
}

/** A peer that presented a valid bearer token. */
export class PeerUser implements User {
  readonly peer: CallingPeer;
  readonly transport: PeerTransport;

  constructor(peer: CallingPeer, transport: PeerTransport) {
    this.peer = peer;
    this.transport = transport;
  }

  get isAuthenticated(): boolean {
    return true;
  }

  /** The peer id: tasks are kept per peer under it. */
  get userName(): string {
    return this.peer.id;
  }
}

/**
 * The peer of a call.
 *
 * @throws SwitchboardError `http.unauthorized` when the call has no authenticated peer (the routes
 *   refuse such calls before the SDK sees them, so this is a wiring fault).
 */
export function peerOfContext(context: ServerCallContext): { peer: CallingPeer; transport: PeerTransport } {
  const user = context.user;
  if (!(user instanceof PeerUser)) throw new SwitchboardError('http.unauthorized', 'No authenticated peer on this A2A call.');
  return { peer: user.peer, transport: user.transport };
}
