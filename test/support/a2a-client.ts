/**
 * The `@a2a-js/sdk` client as a peer developer uses it against a running switchboard: the card
 * read from `/.well-known/agent-card.json`, the bearer token on every call, one transport chosen.
 */
import { randomUUID } from 'node:crypto';
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';

/** The two A2A bindings our card lists. */
export type A2aBinding = 'JSONRPC' | 'HTTP+JSON';

/** A fetch that adds `Authorization: Bearer <token>` to every request. */
export function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** A client of the service at `baseUrl` for the peer holding `token`, over `binding`. */
export function peerClient(baseUrl: string, token: string, binding: A2aBinding): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the SDK types its options as classes it does not export; its own docs pass plain objects
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [binding],
  });
  return new ClientFactory(options).createFromUrl(baseUrl);
}

/** A user message with one text part. */
export function userMessage(text: string, ids: { contextId?: string; taskId?: string; messageId?: string } = {}): Message {
  return {
    messageId: ids.messageId ?? randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} }],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}
