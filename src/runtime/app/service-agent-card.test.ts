import { AgentCard as AgentCardJson } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beachEnvelopeConsumes } from '../../protocol/agent-card/beach-extension.ts';
import { validateAgentCard } from '../../protocol/agent-card/validate-agent-card.ts';
import { readFakeRequest, startFakeServer, type FakeRequest } from '../../../test/support/fake-http.ts';
import type { ListeningServer } from '../../../test/support/loopback-server.ts';
import { DEFAULT_ACTOR_LIMITS, type ActorConfig } from '../actor/actor-config.ts';
import { agentCardJson, serviceAgentCard } from './service-agent-card.ts';

const actor = (name: string, systemPrompt: string): ActorConfig => ({ name, model: 'm', systemPrompt, tools: [], midTurn: 'steer', limits: DEFAULT_ACTOR_LIMITS });
const app = { name: 'demo', actors: [actor('concierge', 'Books trips.\nMore detail.'), actor('writer', 'Writes.')] };

describe('serviceAgentCard', () => {
  it('lists the JSON-RPC and HTTP+JSON interfaces, streaming, llm-context and the bearer scheme', () => {
    const card = serviceAgentCard({ publicUrl: 'https://bot.example.com/sb', app });
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://bot.example.com/sb/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: 'https://bot.example.com/sb/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(beachEnvelopeConsumes(card)).toContain('llm-context');
    const bearer = card.securitySchemes['bearer']?.scheme;
    expect(bearer?.$case === 'httpAuthSecurityScheme' ? bearer.value.scheme : bearer?.$case).toBe('Bearer');
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    expect(card.skills.map((skill) => [skill.id, skill.description])).toEqual([['concierge', 'Books trips.'], ['writer', 'Writes.']]);
  });

  it('serves the A2A JSON form, which validates and reads back into the same card', () => {
    const card = serviceAgentCard({ publicUrl: 'http://localhost:3000', app });
    const json = agentCardJson(card) as Record<string, unknown>;
    expect(json['securitySchemes']).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: card.securitySchemes['bearer']?.scheme?.value.description } } });
    const checked = validateAgentCard(json);
    expect(checked.ok).toBe(true);
    expect(beachEnvelopeConsumes(json)).toEqual(beachEnvelopeConsumes(card));
    expect(AgentCardJson.fromJSON(json).securitySchemes).toEqual(card.securitySchemes);
  });
});

describe('the SDK client reading the card', () => {
  let server: ListeningServer;
  const received: FakeRequest[] = [];

  beforeAll(async () => {
    const started = await startFakeServer(
      async (req, res) => {
        const request = await readFakeRequest(req);
        received.push(request);
        if (request.pathname === '/.well-known/agent-card.json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(agentCardJson(serviceAgentCard({ publicUrl: server.origin, app }))));
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
      },
      (res) => { res.writeHead(500).end(); },
    );
    server = started.listening;
  });

  afterAll(async () => {
    await server.close();
  });

  async function pathCalled(factory: ClientFactory): Promise<{ protocol: string; request: string }> {
    const client = await factory.createFromUrl(server.origin);
    const before = received.length;
    await client.getTask({ id: 'task-1', tenant: '' }).catch(() => undefined);
    const request = received.slice(before)[0];
    return { protocol: client.transport.protocolName, request: `${request?.method ?? ''} ${request?.pathname ?? ''}` };
  }

  it('picks JSON-RPC first, POSTing to <PUBLIC_URL>/a2a/jsonrpc', async () => {
    expect(await pathCalled(new ClientFactory())).toEqual({ protocol: 'JSONRPC', request: 'POST /a2a/jsonrpc' });
  });

  it('finds HTTP+JSON, calling <PUBLIC_URL>/a2a/rest/tasks/<id>', async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }));
    expect(await pathCalled(factory)).toEqual({ protocol: 'HTTP+JSON', request: 'GET /a2a/rest/tasks/task-1' });
  });
});
