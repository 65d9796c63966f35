import { describe, expect, it } from 'vitest';
import { isPersonalDataPath, personalDataSegments } from './personal-data-paths.ts';
import { createToolRegistry } from './tool-registry.ts';
import { plainTool, registerRaw, thrownBy } from './tool-test-fixtures.ts';

describe('personalData of a tool registration', () => {
  it('reads paths as segments, a leading slash allowed', () => {
    expect(personalDataSegments('/passengers/*/fullName')).toEqual(['passengers', '*', 'fullName']);
    expect(isPersonalDataPath('taskId')).toBe(true);
    expect(isPersonalDataPath('a//b')).toBe(false);
    expect(isPersonalDataPath('')).toBe(false);
  });

  it('defaults to none and keeps what is given', () => {
    expect(registerRaw(createToolRegistry(), plainTool()).personalData).toEqual([]);
    expect(registerRaw(createToolRegistry(), plainTool({ personalData: ['taskId', '*/x'] })).personalData).toEqual(['taskId', '*/x']);
  });

  it('refuses paths that are not strings, are malformed, or name an argument the schema does not have', () => {
    for (const personalData of ['taskId', [3], ['a//b'], ['taskid']]) {
      const error = thrownBy(() => registerRaw(createToolRegistry(), plainTool({ personalData })));
      expect(error.code).toBe('tool.invalid_definition');
      expect(error.details['rule']).toBe('personal-data-paths');
    }
  });
});
