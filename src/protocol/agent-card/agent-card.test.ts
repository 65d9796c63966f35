import { AgentCard as AgentCardCodec } from '@a2a-js/sdk';
import type { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors.ts';
import { buildAgentCard, DEFAULT_MODES } from './agent-card.ts';
import type { BuildAgentCardOptions } from './agent-card.ts';
import { BEACH_EXTENSION_URI, beachEnvelopeConsumes, beachExtension } from './beach-extension.ts';
import { validateAgentCard } from './validate-agent-card.ts';

const options: BuildAgentCardOptions = {
  name: 'Concierge',
  description: 'Answers guests and books tables.',
  url: 'https://bot.example.com/a2a',
  version: '0.1.0',
  skills: [{ id: 'book', name: 'Book a table', description: 'Books a restaurant table.', tags: ['booking'] }],
  envelopeConsumes: ['domain-data', 'llm-context'],
};

function issuesOf(value: unknown): readonly { path: string; message: string }[] {
  const result = validateAgentCard(value);
  if (result.ok) throw new Error('expected the card to be invalid');
  return result.issues;
}

function wireCard(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(buildAgentCard(options))) as Record<string, unknown>;
}

describe('buildAgentCard', () => {
  it('builds an A2A v1.0 card with the Beach extension in capabilities.extensions', () => {
    const card = buildAgentCard(options);
    expect(card.name).toBe('Concierge');
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://bot.example.com/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ]);
    expect(card.capabilities?.extensions).toEqual([
      {
        uri: BEACH_EXTENSION_URI,
        description: expect.any(String) as unknown,
        required: false,
        params: { envelopeConsumes: ['domain-data', 'llm-context'] },
      },
    ]);
    expect(card.defaultInputModes).toEqual(DEFAULT_MODES);
    expect(card.defaultOutputModes).toEqual(DEFAULT_MODES);
    expect(card.skills[0]).toEqual({
      id: 'book',
      name: 'Book a table',
      description: 'Books a restaurant table.',
      tags: ['booking'],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    });
    expect(card.signatures).toEqual([]);
    expect(card.securitySchemes).toEqual({});
  });

  it('keeps further extensions after the Beach one and sets optional fields only when given', () => {
    const card = buildAgentCard({
      ...options,
      extensions: [{ uri: 'https://example.com/ext', description: 'other', required: false, params: undefined }],
      streaming: true,
      documentationUrl: 'https://docs.example.com',
      provider: { url: 'https://example.com', organization: 'Example' },
    });
    expect(card.capabilities?.extensions.map((extension) => extension.uri)).toEqual([
      BEACH_EXTENSION_URI,
      'https://example.com/ext',
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.capabilities).not.toHaveProperty('pushNotifications');
    expect(card.documentationUrl).toBe('https://docs.example.com');
    expect(card).not.toHaveProperty('iconUrl');
  });

  it('validates its own output, including its JSON form as the SDK writes it', () => {
    const card = buildAgentCard(options);
    expect(validateAgentCard(card).ok).toBe(true);
    expect(validateAgentCard(JSON.parse(JSON.stringify(card))).ok).toBe(true);
    const sdkJson = AgentCardCodec.toJSON(card);
    const result = validateAgentCard(sdkJson);
    expect(result.ok).toBe(true);
    if (result.ok) expect(beachEnvelopeConsumes(result.card)).toEqual(['domain-data', 'llm-context']);
  });

  it('throws agent_card.invalid with the issues for a relative URL', () => {
    let caught: unknown;
    try {
      buildAgentCard({ ...options, url: '/a2a' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SwitchboardError);
    expect((caught as SwitchboardError).code).toBe('agent_card.invalid');
    expect((caught as SwitchboardError).details['issues']).toEqual([
      { path: '/supportedInterfaces/0/url', message: 'must be an absolute http(s) URL' },
    ]);
  });

  it('throws agent_card.invalid for a duplicate in envelopeConsumes or an empty name', () => {
    expect(() => buildAgentCard({ ...options, envelopeConsumes: ['domain-data', 'domain-data'] })).toThrow(
      expect.objectContaining({ code: 'agent_card.invalid' }),
    );
    expect(() => buildAgentCard({ ...options, name: '' })).toThrow(expect.objectContaining({ code: 'agent_card.invalid' }));
  });
});

describe('validateAgentCard', () => {
  it('fills what the A2A JSON form may leave out and returns a copy', () => {
    const wire = wireCard();
    delete wire['securitySchemes'];
    delete wire['signatures'];
    const result = validateAgentCard(wire);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.card.signatures).toEqual([]);
    expect(result.card.securitySchemes).toEqual({});
    expect(result.card.provider).toBeUndefined();
    expect(result.card).not.toBe(wire);
    expect(result.card.skills).not.toBe(wire['skills']);
  });

  it('rejects what is not an object', () => {
    expect(issuesOf('card')).toEqual([{ path: '', message: 'must be object' }]);
    expect(issuesOf(null).length).toBeGreaterThan(0);
  });

  it('lists every missing required field', () => {
    const issues = issuesOf({ name: 'x' });
    expect(issues.map((issue) => issue.path).sort()).toEqual(
      [
        '/capabilities',
        '/defaultInputModes',
        '/defaultOutputModes',
        '/description',
        '/skills',
        '/supportedInterfaces',
        '/version',
      ].sort(),
    );
  });

  it('requires at least one interface, each with url, binding and version', () => {
    const wire = wireCard();
    expect(issuesOf({ ...wire, supportedInterfaces: [] }).map((issue) => issue.path)).toEqual(['/supportedInterfaces']);
    expect(issuesOf({ ...wire, supportedInterfaces: [{ url: 'https://x.example' }] }).map((issue) => issue.path).sort()).toEqual([
      '/supportedInterfaces/0/protocolBinding',
      '/supportedInterfaces/0/protocolVersion',
    ]);
  });

  it('requires skill id, name, description and tags', () => {
    const wire = wireCard();
    const issues = issuesOf({ ...wire, skills: [{ id: 'a', name: 'A' }] });
    expect(issues.map((issue) => issue.path).sort()).toEqual(['/skills/0/description', '/skills/0/tags']);
  });

  it('requires params.envelopeConsumes on the Beach extension', () => {
    const wire = wireCard();
    const noParams = { ...wire, capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI }] } };
    expect(issuesOf(noParams)).toContainEqual(expect.objectContaining({ path: '/capabilities/extensions/0/params' }));
    const noList = { ...wire, capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI, params: {} }] } };
    expect(issuesOf(noList)).toContainEqual(
      expect.objectContaining({ path: '/capabilities/extensions/0/params/envelopeConsumes' }),
    );
  });

  it('requires envelopeConsumes to be distinct non-empty strings', () => {
    const wire = wireCard();
    const withList = (list: unknown): unknown => ({
      ...wire,
      capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI, params: { envelopeConsumes: list } }] },
    });
    expect(issuesOf(withList('domain-data')).length).toBeGreaterThan(0);
    expect(issuesOf(withList([1]))).toContainEqual(
      expect.objectContaining({ path: '/capabilities/extensions/0/params/envelopeConsumes/0' }),
    );
    expect(issuesOf(withList(['a', 'a']))).toContainEqual(
      expect.objectContaining({ path: '/capabilities/extensions/0/params/envelopeConsumes' }),
    );
    expect(issuesOf(withList(['']))).toContainEqual(
      expect.objectContaining({ path: '/capabilities/extensions/0/params/envelopeConsumes/0' }),
    );
  });

  it('does not constrain the params of other extensions', () => {
    const wire = wireCard();
    const other = { ...wire, capabilities: { extensions: [{ uri: 'https://example.com/ext', params: { anything: 1 } }] } };
    expect(validateAgentCard(other).ok).toBe(true);
  });

  it('refuses a card declaring the Beach extension twice', () => {
    const wire = wireCard();
    const twice = {
      ...wire,
      capabilities: { extensions: [beachExtension(['domain-data']), beachExtension(['llm-context'])] },
    };
    expect(issuesOf(twice)).toEqual([
      { path: '/capabilities/extensions/1', message: 'the Beach extension must be declared at most once' },
    ]);
  });
});

describe('beachEnvelopeConsumes', () => {
  it('reads the Beach extension, in card order', () => {
    expect(beachEnvelopeConsumes(buildAgentCard({ ...options, envelopeConsumes: ['llm-context', 'domain-data'] }))).toEqual([
      'llm-context',
      'domain-data',
    ]);
  });

  it('is empty for a card without the Beach extension', () => {
    const card: AgentCard = { ...buildAgentCard(options), capabilities: { extensions: [] } };
    expect(beachEnvelopeConsumes(card)).toEqual([]);
    expect(beachEnvelopeConsumes({ capabilities: undefined })).toEqual([]);
    expect(beachEnvelopeConsumes({})).toEqual([]);
  });

  it('ignores entries that are not strings in an unvalidated card', () => {
    const card = { capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI, params: { envelopeConsumes: ['a', 3, null] } }] } };
    expect(beachEnvelopeConsumes(card)).toEqual(['a']);
    expect(beachEnvelopeConsumes({ capabilities: { extensions: [{ uri: BEACH_EXTENSION_URI, params: undefined }] } })).toEqual([]);
  });
});
