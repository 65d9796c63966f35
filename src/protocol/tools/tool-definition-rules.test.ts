import { describe, expect, it } from 'vitest';
import { createToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw, thrownBy } from './tool-test-fixtures.ts';

const specialist = { scope: 'specialist', justification: 'Private IMAP access of the email researcher.' };
const bypass = { ...specialist, routing: 'bypass', bypassRouting: { reason: 'Inline, latency-sensitive extraction.' } };

function rejection(definition: unknown): { code: string; rule: unknown; message: string } {
  const error = thrownBy(() => registerRaw(createToolRegistry(), definition));
  return { code: error.code, rule: error.details['rule'], message: error.message };
}

describe('scope x routing', () => {
  it('accepts generalist and defaults routing to routed', () => {
    const tool = registerRaw(createToolRegistry(), plainTool());
    expect(tool.scope).toBe('generalist');
    expect(tool.routing).toBe('routed');
    expect(tool.peerExposed).toBe(false);
  });

  it('accepts generalist with routing routed given explicitly', () => {
    expect(registerRaw(createToolRegistry(), plainTool({ routing: 'routed' })).routing).toBe('routed');
  });

  it('accepts specialist routed (the default) with a justification', () => {
    const tool = registerRaw(createToolRegistry(), plainTool(specialist));
    expect(tool).toMatchObject({ scope: 'specialist', routing: 'routed', justification: specialist.justification });
  });

  it('accepts specialist bypass with bypassRouting.reason and justification', () => {
    const tool = registerRaw(createToolRegistry(), plainTool(bypass));
    expect(tool.routing).toBe('bypass');
    if (tool.routing !== 'bypass') throw new Error('unreachable');
    expect(tool.bypassRouting.reason).toBe('Inline, latency-sensitive extraction.');
  });

  it('rejects generalist + bypass', () => {
    const result = rejection(plainTool({ routing: 'bypass', bypassRouting: { reason: 'fast' } }));
    expect(result).toMatchObject({ code: 'tool.invalid_definition', rule: 'generalist-routed-only' });
    expect(result.message).toContain('"task_get"');
  });

  it('rejects an unknown scope and a missing scope', () => {
    expect(rejection(plainTool({ scope: 'shared' })).rule).toBe('scope-value');
    expect(rejection(plainTool({ scope: undefined })).rule).toBe('scope-value');
  });

  it('rejects an unknown routing value', () => {
    expect(rejection(plainTool({ routing: 'inline' })).rule).toBe('routing-value');
  });
});

describe('specialist requirements', () => {
  it('rejects a specialist without justification', () => {
    expect(rejection(plainTool({ scope: 'specialist' }))).toMatchObject({
      code: 'tool.invalid_definition',
      rule: 'specialist-justification',
    });
    expect(rejection(plainTool({ ...specialist, justification: '   ' })).rule).toBe('specialist-justification');
  });

  it('rejects bypass without bypassRouting.reason', () => {
    expect(rejection(plainTool({ ...specialist, routing: 'bypass' })).rule).toBe('bypass-reason');
    expect(rejection(plainTool({ ...bypass, bypassRouting: {} })).rule).toBe('bypass-reason');
    expect(rejection(plainTool({ ...bypass, bypassRouting: { reason: '' } })).rule).toBe('bypass-reason');
  });

  it('rejects bypassRouting on a routed specialist', () => {
    expect(rejection(plainTool({ ...specialist, bypassRouting: { reason: 'x' } })).rule).toBe('bypass-routing-needs-bypass');
  });

  it('rejects peerExposed: true on specialist tools, routed or bypass', () => {
    const routed = rejection(plainTool({ ...specialist, peerExposed: true }));
    expect(routed).toMatchObject({ code: 'tool.invalid_definition', rule: 'peer-exposed-specialist' });
    expect(rejection(plainTool({ ...bypass, peerExposed: true })).rule).toBe('peer-exposed-specialist');
  });

  it('keeps peerExposed on a generalist tool', () => {
    expect(registerRaw(createToolRegistry(), plainTool({ peerExposed: true })).peerExposed).toBe(true);
  });

  it('rejects justification and bypassRouting on a generalist tool', () => {
    expect(rejection(plainTool({ justification: 'why' })).rule).toBe('specialist-field-on-generalist');
  });
});

describe('names', () => {
  it('rejects the reserved name respond, in any case', () => {
    expect(rejection(plainTool({ name: 'respond' }))).toMatchObject({ code: 'tool.invalid_definition', rule: 'name-reserved' });
    expect(rejection(plainTool({ name: 'Respond' })).rule).toBe('name-reserved');
  });

  it.each(['', 'has space', 'dot.name', 'é', 'a'.repeat(65), 42, undefined])('rejects the bad name %j', (name) => {
    expect(rejection(plainTool({ name }))).toMatchObject({ code: 'tool.invalid_definition', rule: 'name-format' });
  });

  it.each(['a', 'task_get', 'Task-Get-2', 'x'.repeat(64)])('accepts the name %j', (name) => {
    expect(registerRaw(createToolRegistry(), plainTool({ name })).name).toBe(name);
  });
});

describe('other fields', () => {
  it('rejects a non-object definition', () => {
    expect(rejection(null).rule).toBe('definition-object');
  });

  it('requires a non-empty description', () => {
    expect(rejection(plainTool({ description: undefined })).rule).toBe('description-required');
    expect(rejection(plainTool({ description: ' ' })).rule).toBe('description-required');
  });

  it('requires a handler function', () => {
    expect(rejection(plainTool({ handler: undefined })).rule).toBe('handler-required');
    expect(rejection(plainTool({ handler: 'run' })).rule).toBe('handler-required');
  });

  it('requires an object inputSchema with type object', () => {
    expect(rejection(plainTool({ inputSchema: undefined })).rule).toBe('input-schema-object');
    expect(rejection(plainTool({ inputSchema: { type: 'string' } })).rule).toBe('input-schema-object');
  });

  it('rejects unknown fields such as a misspelt requiresApproval', () => {
    const result = rejection(plainTool({ requireApproval: true }));
    expect(result).toMatchObject({ code: 'tool.invalid_definition', rule: 'unknown-field' });
    expect(result.message).toContain('requireApproval');
  });

  it('captures tags and rejects non-string tags', () => {
    expect(registerRaw(createToolRegistry(), plainTool({ tags: ['read', 'task'] })).tags).toEqual(['read', 'task']);
    expect(rejection(plainTool({ tags: ['ok', 3] })).rule).toBe('tags-strings');
  });

  it('keeps the terminal flag, defaults it to false and rejects non-booleans', () => {
    expect(registerRaw(createToolRegistry(), plainTool({ terminal: true })).terminal).toBe(true);
    expect(registerRaw(createToolRegistry(), plainTool()).terminal).toBe(false);
    expect(rejection(plainTool({ terminal: 'yes' })).rule).toBe('terminal-boolean');
  });

  it('rejects a non-boolean peerExposed', () => {
    expect(rejection(plainTool({ peerExposed: 'yes' })).rule).toBe('peer-exposed-boolean');
  });

  it('keeps readsUntrusted, defaults it to false and rejects non-booleans', () => {
    expect(registerRaw(createToolRegistry(), plainTool({ readsUntrusted: true })).readsUntrusted).toBe(true);
    expect(registerRaw(createToolRegistry(), plainTool()).readsUntrusted).toBe(false);
    expect(rejection(plainTool({ readsUntrusted: 'yes' })).rule).toBe('reads-untrusted-boolean');
  });

  it("keeps untrustedTurns, defaults it to 'approve' and rejects other values", () => {
    expect(registerRaw(createToolRegistry(), plainTool({ untrustedTurns: 'policy' })).untrustedTurns).toBe('policy');
    expect(registerRaw(createToolRegistry(), plainTool()).untrustedTurns).toBe('approve');
    const result = rejection(plainTool({ untrustedTurns: 'never' }));
    expect(result.rule).toBe('untrusted-turns-value');
    expect(result.message).toContain('"never"');
  });
});
