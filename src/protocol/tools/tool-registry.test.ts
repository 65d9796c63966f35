import { describe, expect, it } from 'vitest';
import { createToolRegistry, ToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw, sampleContext, thrownBy } from './tool-test-fixtures.ts';

function registryWith(...names: string[]): ToolRegistry {
  const registry = createToolRegistry();
  for (const name of names) registerRaw(registry, plainTool({ name }));
  return registry;
}

describe('registration', () => {
  it('rejects a duplicate name', () => {
    const registry = registryWith('task_get');
    const error = thrownBy(() => registerRaw(registry, plainTool({ description: 'Another.' })));
    expect(error.code).toBe('tool.duplicate');
    expect(error.message).toContain('"task_get"');
    expect(registry.require('task_get').description).toBe('Get one task by id.');
  });

  it('returns a frozen tool whose schemas are frozen copies of the definition', () => {
    const inputSchema = { type: 'object', properties: { taskId: { type: 'string' } } };
    const tool = registerRaw(createToolRegistry(), plainTool({ inputSchema }));
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.inputSchema)).toBe(true);
    expect(tool.inputSchema).toEqual(inputSchema);
    expect(tool.inputSchema).not.toBe(inputSchema);
  });

  it('fills the defaults of optional fields', () => {
    const tool = registerRaw(createToolRegistry(), plainTool());
    expect(tool).toMatchObject({ routing: 'routed', peerExposed: false, tags: [], terminal: false, requiresApproval: false, readsUntrusted: false, untrustedTurns: 'approve' });
    expect(tool.outputSchema).toBeUndefined();
  });

  it.each([
    ['an unknown keyword', { type: 'object', properties: { a: { type: 'string', minLenght: 2 } } }],
    ['a misspelt type', { type: 'object', properties: { a: { type: 'strng' } } }],
    ['required naming an undeclared property', { type: 'object', properties: {}, required: ['a'] }],
    ['an unknown format', { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } }],
  ])('fails registration with tool.invalid_schema for %s', (_label, inputSchema) => {
    const registry = createToolRegistry();
    const error = thrownBy(() => registerRaw(registry, plainTool({ inputSchema })));
    expect(error.code).toBe('tool.invalid_schema');
    expect(error.details).toMatchObject({ tool: 'task_get', field: 'inputSchema' });
    expect(registry.has('task_get')).toBe(false);
  });

  it('fails registration for a bad outputSchema and keeps nothing', () => {
    const registry = createToolRegistry();
    const error = thrownBy(() => registerRaw(registry, plainTool({ outputSchema: { type: 'nope' } })));
    expect(error.code).toBe('tool.invalid_schema');
    expect(error.details['field']).toBe('outputSchema');
    expect(registry.names()).toEqual([]);
  });

  it('accepts formats given in the config', () => {
    const registry = createToolRegistry({ formats: { 'date-time': /^\d{4}-\d{2}-\d{2}T/ } });
    registerRaw(registry, plainTool({ inputSchema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } } }));
    expect(registry.validateArguments('task_get', { at: '2024-01-01T00:00:00Z' }).ok).toBe(true);
    expect(registry.validateArguments('task_get', { at: 'yesterday' }).ok).toBe(false);
  });

  it('lets two tools use the same $id', () => {
    const registry = createToolRegistry();
    const inputSchema = { $id: 'https://example.test/args', type: 'object' };
    registerRaw(registry, plainTool({ name: 'a', inputSchema }));
    registerRaw(registry, plainTool({ name: 'b', inputSchema }));
    expect(registry.names()).toEqual(['a', 'b']);
  });
});

describe('lookup', () => {
  it('get, has, require, names and all follow registration order', () => {
    const registry = registryWith('b_tool', 'a_tool');
    expect(registry.names()).toEqual(['b_tool', 'a_tool']);
    expect(registry.all().map((tool) => tool.name)).toEqual(['b_tool', 'a_tool']);
    expect(registry.get('a_tool')?.name).toBe('a_tool');
    expect(registry.get('zzz')).toBeUndefined();
    expect(registry.has('b_tool')).toBe(true);
  });

  it('require names the missing tool and lists the known ones', () => {
    const error = thrownBy(() => registryWith('task_get', 'task_list').require('task_put'));
    expect(error.code).toBe('tool.unknown');
    expect(error.message).toContain('"task_put"');
    expect(error.message).toContain('task_get, task_list');
    expect(error.details).toEqual({ tool: 'task_put', known: ['task_get', 'task_list'] });
  });
});

describe('resolveForActor', () => {
  it('returns the listed tools in the listed order, once each', () => {
    const registry = registryWith('task_get', 'task_list', 'missive_list');
    const tools = registry.resolveForActor('triage', ['missive_list', 'task_get', 'missive_list']);
    expect(tools.map((tool) => tool.name)).toEqual(['missive_list', 'task_get']);
  });

  it('fails on unknown names, naming each and listing the known tools', () => {
    const registry = registryWith('task_get', 'task_list');
    const error = thrownBy(() => registry.resolveForActor('triage', ['task_get', 'person_lookup', 'missive_list']));
    expect(error.code).toBe('tool.unknown');
    expect(error.message).toContain('"triage"');
    expect(error.message).toContain('"person_lookup"');
    expect(error.message).toContain('"missive_list"');
    expect(error.message).toContain('Known tools: task_get, task_list.');
    expect(error.details).toEqual({
      actorName: 'triage',
      unknown: ['person_lookup', 'missive_list'],
      known: ['task_get', 'task_list'],
    });
  });

  it('explains that respond is not to be listed', () => {
    const error = thrownBy(() => registryWith('task_get').resolveForActor('triage', ['respond']));
    expect(error.code).toBe('tool.unknown');
    expect(error.message).toContain('respond() is given to every actor');
  });

  it('says so when no tools are registered', () => {
    expect(thrownBy(() => createToolRegistry().resolveForActor('triage', ['x'])).message).toContain('No tools are registered.');
  });
});

describe('validateArguments', () => {
  const schema = {
    type: 'object',
    properties: {
      taskId: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1 },
      filter: {
        type: 'object',
        properties: { status: { enum: ['open', 'done'] } },
        required: ['status'],
        additionalProperties: false,
      },
    },
    required: ['taskId'],
    additionalProperties: false,
  };

  it('returns the arguments when they match', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ inputSchema: schema }));
    const args = { taskId: 't-1', limit: 3, filter: { status: 'open' } };
    expect(registry.validateArguments('task_get', args)).toEqual({ ok: true, value: args });
  });

  it('returns every issue with a JSON Pointer path, without throwing', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ inputSchema: schema }));
    const result = registry.validateArguments('task_get', { limit: 0, filter: { status: 'lost', extra: 1 }, junk: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('tool.invalid_arguments');
    const paths = result.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['/filter/extra', '/filter/status', '/junk', '/limit', '/taskId']);
    expect(result.message).toContain('"task_get"');
    expect(result.message).toContain('/taskId');
    expect(result.issues.find((issue) => issue.path === '/filter/status')?.message).toContain('"open","done"');
  });

  it('reports a non-object argument value at the root', () => {
    const registry = registryWith('task_get');
    const result = registry.validateArguments('task_get', 'task 1');
    expect(result).toMatchObject({ ok: false, issues: [{ path: '' }] });
  });

  it('escapes JSON Pointer tokens in property names', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ inputSchema: { type: 'object', additionalProperties: false } }));
    const result = registry.validateArguments('task_get', { 'a/b~c': 1 });
    expect(result).toMatchObject({ ok: false, issues: [{ path: '/a~1b~0c' }] });
  });

  it('returns tool.unknown as a value for an unregistered tool', () => {
    const result = registryWith('task_get').validateArguments('task_put', {});
    expect(result).toMatchObject({ ok: false, code: 'tool.unknown' });
    if (!result.ok) expect(result.message).toContain('task_get');
  });

  it('reports arguments its schema keywords cannot compare as an issue, instead of throwing', () => {
    // Counterexample found by tool-registry.properties.test.ts: Ajv's uniqueItems threw "a.valueOf is not a function".
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ inputSchema: { type: 'object', properties: { stops: { type: 'array', uniqueItems: true } } } }));
    const result = registry.validateArguments('task_get', { stops: [Object.create(null), Object.create(null)] });
    expect(result).toMatchObject({ ok: false, code: 'tool.invalid_arguments', issues: [{ path: '', message: expect.stringContaining('plain JSON data') as unknown }] });
  });

  it('does not change the arguments', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 3 } } } }));
    const args = {};
    registry.validateArguments('task_get', args);
    expect(args).toEqual({});
  });
});

describe('validateOutput', () => {
  const outputSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

  it('accepts a matching output and rejects a wrong one with paths', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ outputSchema }));
    expect(registry.validateOutput('task_get', { id: 'x' })).toEqual({ ok: true, value: { id: 'x' } });
    const bad = registry.validateOutput('task_get', { id: 7 });
    expect(bad).toMatchObject({ ok: false, code: 'tool.invalid_output', issues: [{ path: '/id' }] });
  });

  it('accepts anything when the tool has no output schema', () => {
    expect(registryWith('task_get').validateOutput('task_get', 42)).toEqual({ ok: true, value: 42 });
  });

  it('keeps the output schema as a frozen copy', () => {
    const tool = registerRaw(createToolRegistry(), plainTool({ outputSchema }));
    expect(tool.outputSchema).toEqual(outputSchema);
    expect(Object.isFrozen(tool.outputSchema)).toBe(true);
  });
});

describe('toModelTool', () => {
  it('gives the Anthropic tool shape with a mutable copy of the schema', () => {
    const registry = registryWith('task_get');
    const model = registry.toModelTool('task_get');
    expect(model).toEqual({
      name: 'task_get',
      description: 'Get one task by id.',
      input_schema: {
        type: 'object',
        properties: { taskId: { type: 'string' } },
        required: ['taskId'],
        additionalProperties: false,
      },
    });
    expect(Object.isFrozen(model.input_schema)).toBe(false);
    expect(registry.toModelTool(registry.require('task_get'))).toEqual(model);
  });

  it('throws tool.unknown for an unregistered name', () => {
    expect(thrownBy(() => registryWith().toModelTool('x')).code).toBe('tool.unknown');
  });
});

describe('terminal tools', () => {
  it('keeps the flag so the actor loop can end the turn on a terminal tool', () => {
    const registry = createToolRegistry();
    registerRaw(registry, plainTool({ name: 'format_result', terminal: true }));
    registerRaw(registry, plainTool({ name: 'task_get' }));
    const terminal = registry.resolveForActor('triage', ['format_result', 'task_get']).filter((tool) => tool.terminal);
    expect(terminal.map((tool) => tool.name)).toEqual(['format_result']);
  });
});

describe('evaluateApproval', () => {
  it('throws tool.unknown for an unregistered name', () => {
    expect(() => registryWith().evaluateApproval('x', {}, sampleContext())).toThrow(/Unknown tool "x"/);
  });
});
