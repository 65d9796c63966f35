import { describe, expect, it } from 'vitest';
import { resolveInspectSettings } from './inspect-settings.ts';

describe('inspect settings', () => {
  it('captures by default with the private Redis of npm start, not against REDIS_URL; what is written wins', () => {
    expect(resolveInspectSettings(undefined, true)).toMatchObject({ capture: true, retentionDays: 7 });
    expect(resolveInspectSettings(undefined, false)).toMatchObject({ capture: false, retentionDays: 7 });
    expect(resolveInspectSettings({ capture: false }, true).capture).toBe(false);
    expect(resolveInspectSettings({ capture: true, retentionDays: 3 }, false)).toMatchObject({ capture: true, retentionDays: 3 });
  });

  it('prices models from the built-in table and the written overrides', () => {
    const { prices } = resolveInspectSettings({ prices: { mine: { input: 1, output: 1 } } }, false);
    expect(prices.priceOf('mine')).toMatchObject({ input: 1, output: 1 });
    expect(prices.priceOf('claude-sonnet-5-5')).toBeDefined();
  });
});
