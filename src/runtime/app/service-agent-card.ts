/**
 * This service's A2A Agent Card: what `/.well-known/agent-card.json` serves and what the A2A request
 * handler is given. Peers find here the two A2A v1.0 interfaces, the bearer scheme they authenticate
 * with and, in the Beach extension, the envelope part types we accept.
 */
import { AgentCard as AgentCardJson, type AgentCard } from '@a2a-js/sdk';
import { buildAgentCard } from '../../protocol/agent-card/agent-card.ts';
import type { LoadedApp } from './app-types.ts';

/** Path of the JSON-RPC interface (protocol binding `JSONRPC`): the client POSTs JSON-RPC requests to it. */
export const A2A_JSONRPC_PATH = '/a2a/jsonrpc';

/**
 * Path of the HTTP+JSON interface (protocol binding `HTTP+JSON`). The SDK's REST client calls
 * `<interface url>/message:send`, `/message:stream`, `/tasks/<id>`, `/tasks/<id>:cancel`,
 * `/tasks/<id>:subscribe` (no `/v1` prefix in A2A v1.0), which is where the SDK's express
 * `restHandler` answers when mounted at this path.
 */
export const A2A_REST_PATH = '/a2a/rest';

/** Name of the bearer security scheme in the card's `securitySchemes` and `securityRequirements`. */
const PEER_SECURITY_SCHEME = 'bearer';

/**
 * The envelope parts this service takes from peers. `llm-context` is among them: when we call a
 * Beach peer, we read the context it writes for a model.
 */
export const ENVELOPE_CONSUMES: readonly string[] = [
  'domain-data',
  'a2ui-surface',
  'approval-request',
  'approval-response',
  'artifact',
  'citation',
  'progress',
  'llm-context',
];

/** Options of {@link serviceAgentCard}. */
export interface ServiceAgentCardOptions {
  /** `PUBLIC_URL`, without trailing slash. */
  readonly publicUrl: string;
  /** The app: its name names the card, each actor is a skill. */
  readonly app: Pick<LoadedApp, 'name' | 'actors'>;
}

/**
 * The card, as the SDK's `AgentCard` type (what `DefaultRequestHandler` takes): the JSON-RPC
 * interface `<PUBLIC_URL>/a2a/jsonrpc` first, then HTTP+JSON at `<PUBLIC_URL>/a2a/rest`, both A2A
 * `1.0`; `capabilities.streaming: true`; the Beach extension with {@link ENVELOPE_CONSUMES}; and
 * the HTTP bearer scheme {@link PEER_SECURITY_SCHEME}, required for every call.
 */
export function serviceAgentCard(options: ServiceAgentCardOptions): AgentCard {
  const { name, actors } = options.app;
  return buildAgentCard({
    name,
    description: `switchboard app "${name}": ${actors.map((actor) => actor.name).join(', ')}`,
    url: `${options.publicUrl}${A2A_JSONRPC_PATH}`,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    additionalInterfaces: [{ url: `${options.publicUrl}${A2A_REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' }],
    version: '0.1.0',
    skills: actors.map((actor) => ({
      id: actor.name,
      name: actor.name,
      description: actor.systemPrompt.split('\n')[0] ?? actor.name,
      tags: ['switchboard'],
    })),
    envelopeConsumes: ENVELOPE_CONSUMES,
    streaming: true,
    securitySchemes: {
      [PEER_SECURITY_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            description: 'The token this agent shares with the peer (switchboard.yaml peers[].token).',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [PEER_SECURITY_SCHEME]: { list: [] } } }],
  });
}

/**
 * The card's JSON form, as A2A v1.0 writes it (ProtoJSON: a security scheme is
 * `{ "httpAuthSecurityScheme": { "scheme": "Bearer" } }`, empty fields left out). `@a2a-js/sdk`'s
 * client reads it back into the same `AgentCard`; so do the other A2A SDKs.
 */
export function agentCardJson(card: AgentCard): unknown {
  return AgentCardJson.toJSON(card);
}
