import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileApprovalPolicy, DEFAULT_POLICY_TIMEOUT_MS } from './approval-policy.ts';
import type { ApprovalPolicyInput, ToolArgs } from './tool-definition.ts';
import { createToolRegistry, type ToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw, sampleContext, thrownBy } from './tool-test-fixtures.ts';

const costSchema = { type: 'object', properties: { totalCost: { type: 'number' }, note: { type: 'string' } } };

function withPolicy(requiresApproval: unknown, config: Parameters<typeof createToolRegistry>[0] = {}): ToolRegistry {
  const registry = createToolRegistry(config);
  registerRaw(registry, plainTool({ name: 'book_flight', inputSchema: costSchema, requiresApproval }));
  return registry;
}

function evaluate(registry: ToolRegistry, args: ToolArgs, ctx = sampleContext()): ReturnType<ToolRegistry['evaluateApproval']> {
  return registry.evaluateApproval('book_flight', args, ctx);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('static policies', () => {
  it('false (and unset) never require approval', async () => {
    await expect(evaluate(withPolicy(false), {})).resolves.toMatchObject({ required: false, source: 'static' });
    await expect(evaluate(withPolicy(undefined), {})).resolves.toMatchObject({ required: false, source: 'static' });
  });

  it('true always requires approval', async () => {
    const requirement = await evaluate(withPolicy(true), { totalCost: 1 });
    expect(requirement).toMatchObject({ required: true, source: 'static' });
    expect(requirement.error).toBeUndefined();
  });
});

describe('autoApproveIf (CEL)', () => {
  it('a true expression auto-approves and a false one requires approval', async () => {
    await expect(evaluate(withPolicy({ autoApproveIf: 'true' }), {})).resolves.toMatchObject({ required: false, source: 'expression' });
    await expect(evaluate(withPolicy({ autoApproveIf: 'false' }), {})).resolves.toMatchObject({ required: true, source: 'expression' });
  });

  it('args.totalCost < 50 works with JS numbers 42 and 120', async () => {
    const registry = withPolicy({ autoApproveIf: 'args.totalCost < 50' });
    const cheap = await evaluate(registry, { totalCost: 42 });
    const dear = await evaluate(registry, { totalCost: 120 });
    expect(cheap).toMatchObject({ required: false });
    expect(cheap.error).toBeUndefined();
    expect(dear).toMatchObject({ required: true });
    expect(dear.error).toBeUndefined();
    await expect(evaluate(registry, { totalCost: 49.99 })).resolves.toMatchObject({ required: false });
    await expect(evaluate(registry, { totalCost: 50 })).resolves.toMatchObject({ required: true });
  });

  it('reads nested ctx fields', async () => {
    const registry = withPolicy({ autoApproveIf: "args.totalCost < 50 && ctx.attributes.user.tier == 'trusted' && ctx.tenantId == 'tenant-1'" });
    const trusted = sampleContext({ attributes: { user: { tier: 'trusted' } } });
    const guest = sampleContext({ attributes: { user: { tier: 'guest' } } });
    await expect(evaluate(registry, { totalCost: 42 }, trusted)).resolves.toMatchObject({ required: false });
    await expect(evaluate(registry, { totalCost: 42 }, guest)).resolves.toMatchObject({ required: true });
    await expect(evaluate(registry, { totalCost: 120 }, trusted)).resolves.toMatchObject({ required: true });
  });

  it('reads the handler identity fields', async () => {
    const registry = withPolicy({ autoApproveIf: "ctx.actorName == 'triage' && has(ctx.userId)" });
    await expect(evaluate(registry, {})).resolves.toMatchObject({ required: false });
    const anonymous = sampleContext({ userId: undefined });
    await expect(evaluate(registry, {}, anonymous)).resolves.toMatchObject({ required: true });
  });

  it('fails registration on a syntax error, with its position', () => {
    const error = thrownBy(() => withPolicy({ autoApproveIf: 'args.totalCost <\n  && true' }));
    expect(error.code).toBe('tool.invalid_policy');
    expect(error.message).toContain('line 2, column 3');
    expect(error.details).toMatchObject({ tool: 'book_flight', line: 2, column: 3, offset: 19 });
  });

  it('fails registration when the expression names a variable other than args and ctx', () => {
    const error = thrownBy(() => withPolicy({ autoApproveIf: 'user.tier == "trusted"' }));
    expect(error.code).toBe('tool.invalid_policy');
    expect(error.message).toContain('Unknown variable: user');
    expect(error.details).toMatchObject({ line: 1, column: 1 });
  });

  it('fails registration when the result can never be a bool', () => {
    const error = thrownBy(() => withPolicy({ autoApproveIf: '1 + 1' }));
    expect(error.code).toBe('tool.invalid_policy');
    expect(error.details['resultType']).toBe('int');
  });

  it('fails registration for an empty expression or a malformed rule', () => {
    expect(thrownBy(() => withPolicy({ autoApproveIf: '  ' })).code).toBe('tool.invalid_policy');
    expect(thrownBy(() => withPolicy({ autoApproveIf: 3 })).code).toBe('tool.invalid_policy');
    expect(thrownBy(() => withPolicy({ autoApproveIf: 'true', otherwise: 'deny' })).code).toBe('tool.invalid_policy');
    expect(thrownBy(() => withPolicy('always')).code).toBe('tool.invalid_policy');
  });

  it('fails closed when the result is not a bool at run time', async () => {
    const requirement = await evaluate(withPolicy({ autoApproveIf: 'args.note' }), { note: 'yes' });
    expect(requirement).toMatchObject({ required: true, source: 'expression' });
    expect(requirement.error?.code).toBe('tool.policy_failed');
    expect(requirement.error?.message).toContain('not a bool');
  });

  it('fails closed when evaluation fails (a missing key)', async () => {
    const requirement = await evaluate(withPolicy({ autoApproveIf: 'args.totalCost < 50' }), {});
    expect(requirement).toMatchObject({ required: true });
    expect(requirement.error?.code).toBe('tool.policy_failed');
    expect(requirement.error?.message).toContain('No such key: totalCost');
  });

  it('fails closed on int arithmetic with a JSON number (a CEL double), and works with a double literal', async () => {
    const intLiteral = await evaluate(withPolicy({ autoApproveIf: 'args.totalCost * 2 < 100' }), { totalCost: 42 });
    expect(intLiteral).toMatchObject({ required: true });
    expect(intLiteral.error?.code).toBe('tool.policy_failed');
    const doubleLiteral = await evaluate(withPolicy({ autoApproveIf: 'args.totalCost * 2.0 < 100' }), { totalCost: 42 });
    expect(doubleLiteral).toMatchObject({ required: false });
  });
});

describe('policy functions', () => {
  it('a sync function decides', async () => {
    const registry = withPolicy(({ args }: ApprovalPolicyInput) => args['totalCost'] !== 1);
    await expect(evaluate(registry, { totalCost: 1 })).resolves.toMatchObject({ required: false, source: 'function' });
    await expect(evaluate(registry, { totalCost: 2 })).resolves.toMatchObject({ required: true, source: 'function' });
  });

  it('an async function decides, and may give a reason', async () => {
    const registry = withPolicy(async ({ ctx }: ApprovalPolicyInput) => {
      await Promise.resolve();
      return { required: ctx.tenantId !== 'tenant-1', reason: 'tenant rule' };
    });
    await expect(evaluate(registry, {})).resolves.toEqual({ required: false, reason: 'tenant rule', source: 'function' });
    const other = sampleContext({ tenantId: 'tenant-2' });
    await expect(evaluate(registry, {}, other)).resolves.toMatchObject({ required: true, reason: 'tenant rule' });
  });

  it('receives { args, ctx } only', async () => {
    const seen: unknown[] = [];
    const ctx = sampleContext();
    const registry = withPolicy((input: ApprovalPolicyInput) => {
      seen.push(input);
      return false;
    });
    await evaluate(registry, { totalCost: 3 }, ctx);
    expect(seen).toEqual([{ args: { totalCost: 3 }, ctx }]);
  });

  it('cannot change the arguments the handler will get', async () => {
    const args = { totalCost: 3 };
    const registry = withPolicy(({ args: seen }: ApprovalPolicyInput<{ totalCost: number }>) => {
      seen.totalCost = 0;
      return false;
    });
    await evaluate(registry, args);
    expect(args.totalCost).toBe(3);
  });

  it('fails closed when the function throws, recording the error', async () => {
    const registry = withPolicy(() => {
      throw new Error('directory down');
    });
    const requirement = await evaluate(registry, {});
    expect(requirement).toMatchObject({ required: true, source: 'function' });
    expect(requirement.error?.code).toBe('tool.policy_failed');
    expect(requirement.error?.message).toContain('directory down');
    expect(requirement.error?.cause).toBeInstanceOf(Error);
  });

  it('fails closed when the async function rejects', async () => {
    const registry = withPolicy(() => Promise.reject(new Error('timeout upstream')));
    const requirement = await evaluate(registry, {});
    expect(requirement).toMatchObject({ required: true });
    expect(requirement.error?.message).toContain('timeout upstream');
  });

  it.each([['a string', 'no'], ['null', null], ['an object without required', { reason: 'x' }], ['a bad reason', { required: false, reason: 3 }]])(
    'fails closed when the function answers %s',
    async (_label, answer) => {
      const requirement = await evaluate(withPolicy(() => answer), {});
      expect(requirement).toMatchObject({ required: true });
      expect(requirement.error?.code).toBe('tool.policy_failed');
    },
  );

  it('fails closed when the function takes longer than policyTimeoutMs', async () => {
    vi.useFakeTimers();
    const registry = withPolicy(() => new Promise<boolean>(() => undefined), { policyTimeoutMs: 1_000 });
    const pending = evaluate(registry, {});
    await vi.advanceTimersByTimeAsync(1_000);
    const requirement = await pending;
    expect(requirement).toMatchObject({ required: true });
    expect(requirement.error?.message).toContain('1000 ms');
  });

  it('uses a 5 s timeout by default', async () => {
    expect(DEFAULT_POLICY_TIMEOUT_MS).toBe(5_000);
    vi.useFakeTimers();
    const policy = compileApprovalPolicy('slow', () => new Promise<boolean>(() => undefined));
    let settled = false;
    const pending = policy.evaluate({ args: {}, ctx: sampleContext() }).then((requirement) => {
      settled = true;
      return requirement;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toMatchObject({ required: true });
  });
});
