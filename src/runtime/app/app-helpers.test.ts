import { describe, expect, it } from 'vitest';
import { isToolModuleFile } from './load-tools.ts';
import { fieldPath } from './yaml-validator.ts';

describe('isToolModuleFile', () => {
  it.each([
    ['search_flights.ts', true],
    ['legacy.js', true],
    ['module.mjs', true],
    ['search_flights.test.ts', false],
    ['helper.test.mjs', false],
    ['_shared.ts', false],
    ['types.d.ts', false],
    ['.hidden.ts', false],
    ['data.json', false],
    ['notes.md', false],
  ])('%s -> %s', (name, expected) => {
    expect(isToolModuleFile(name)).toBe(expected);
  });
});

describe('fieldPath', () => {
  it('turns a JSON Pointer into a dotted path with indexes', () => {
    expect(fieldPath('')).toBe('');
    expect(fieldPath('', 'app')).toBe('app');
    expect(fieldPath('/people/0/addresses/sms/1')).toBe('people[0].addresses.sms[1]');
    expect(fieldPath('/channels', 'fax')).toBe('channels.fax');
    expect(fieldPath('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});
