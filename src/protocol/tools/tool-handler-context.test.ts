import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ApprovalDecision, ToolHandlerContext } from './tool-definition.ts';
import { createToolHandlerContext } from './tool-handler-context.ts';
import { createToolRegistry } from './tool-registry.ts';

const decision: ApprovalDecision = {
  approvalId: 'appr-1',
  decision: 'granted',
  decidedBy: 'user-1',
  decidedAt: '2025-01-01T12:00:00Z',
  reason: 'fine',
};

describe('createToolHandlerContext', () => {
  it('carries actorName, sessionId, turnId, userId, personId, tenantId and approvalDecision', () => {
    const ctx = createToolHandlerContext({
      actorName: 'triage',
      sessionId: 's-1',
      turnId: 't-1',
      userId: 'u-1',
      personId: 'p-1',
      tenantId: 'ten-1',
      approvalDecision: decision,
    });
    expect(ctx).toEqual({
      actorName: 'triage',
      sessionId: 's-1',
      turnId: 't-1',
      userId: 'u-1',
      personId: 'p-1',
      tenantId: 'ten-1',
      approvalDecision: decision,
    });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.approvalDecision)).toBe(true);
  });

  it('leaves out unknown identity fields instead of setting them to undefined', () => {
    const ctx = createToolHandlerContext({ actorName: 'a', sessionId: 's', turnId: 't', userId: undefined });
    expect(Object.keys(ctx)).toEqual(['actorName', 'sessionId', 'turnId']);
  });

  it('copies only the known fields', () => {
    const input = { actorName: 'a', sessionId: 's', turnId: 't', secret: 'x' };
    expect(createToolHandlerContext(input)).not.toHaveProperty('secret');
  });

  it('types the optional fields', () => {
    expectTypeOf<ToolHandlerContext['approvalDecision']>().toEqualTypeOf<ApprovalDecision | undefined>();
    expectTypeOf<ToolHandlerContext['userId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ApprovalDecision['decision']>().toEqualTypeOf<'granted' | 'denied'>();
  });

  it('is what a registered handler receives when the loop calls it', async () => {
    const registry = createToolRegistry();
    const tool = registry.register({
      name: 'whoami',
      description: 'Echo the caller.',
      scope: 'generalist',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) => `${ctx.actorName}/${ctx.turnId}/${ctx.approvalDecision?.decision ?? 'none'}`,
    });
    const ctx = createToolHandlerContext({ actorName: 'triage', sessionId: 's', turnId: 't-9', approvalDecision: decision });
    await expect(Promise.resolve(tool.handler({}, ctx))).resolves.toBe('triage/t-9/granted');
  });
});

describe('createToolHandlerContext with a delegation hook', () => {
  it('carries the hook without enumerating it, so policies, observers and logs never see it', () => {
    const delegation = { begin: () => Promise.resolve(), progress: () => Promise.resolve() };
    const ctx = createToolHandlerContext({ actorName: 'a', sessionId: 's', turnId: 't', delegation });
    expect(ctx.delegation).toBe(delegation);
    expect(Object.keys(ctx)).toEqual(['actorName', 'sessionId', 'turnId']);
    expect(JSON.stringify(ctx)).toBe('{"actorName":"a","sessionId":"s","turnId":"t"}');
    expect(Object.isFrozen(ctx)).toBe(true);
  });
});
