import { describe, expect, it } from 'vitest';
import { CEL_CONDITION_VARIABLES, compileCelCondition, positionOf } from './cel-condition.ts';
import { sampleContext, thrownBy } from './tool-test-fixtures.ts';

describe('positionOf', () => {
  it('counts lines and columns from 1', () => {
    expect(positionOf('abc', 0)).toEqual({ offset: 0, line: 1, column: 1 });
    expect(positionOf('abc\nde', 5)).toEqual({ offset: 5, line: 2, column: 2 });
  });
});

describe('compileCelCondition', () => {
  it('declares args and ctx only', () => {
    expect(CEL_CONDITION_VARIABLES).toEqual(['args', 'ctx']);
  });

  it('evaluates against args and ctx', () => {
    const condition = compileCelCondition('t', "args.n > 1 && ctx.sessionId == 'session-1'");
    expect(condition.evaluate({ args: { n: 2 }, ctx: sampleContext() })).toEqual({ ok: true, value: true });
    expect(condition.evaluate({ args: { n: 1 }, ctx: sampleContext() })).toEqual({ ok: true, value: false });
  });

  it('reports the offset, line and column of a syntax error', () => {
    const error = thrownBy(() => compileCelCondition('t', 'args.a < '));
    expect(error.code).toBe('tool.invalid_policy');
    expect(error.details).toMatchObject({ offset: 9, line: 1, column: 10, celCode: 'unexpected_token' });
    expect(error.message).toMatch(/^Tool "t": autoApproveIf expression does not parse at line 1, column 10: /);
  });

  it('rejects unknown functions at compile time', () => {
    expect(thrownBy(() => compileCelCondition('t', 'isTrusted(ctx)')).code).toBe('tool.invalid_policy');
  });

  it('turns an evaluation error into a value, never a throw', () => {
    const condition = compileCelCondition('t', 'args.a.b == 1');
    const outcome = condition.evaluate({ args: null, ctx: sampleContext() });
    expect(outcome.ok).toBe(false);
  });

  it('reports a non-boolean result as a value', () => {
    const outcome = compileCelCondition('t', 'args.a').evaluate({ args: { a: 3 }, ctx: sampleContext() });
    expect(outcome).toEqual({ ok: false, reason: 'result is not a bool (got number)' });
  });
});
