import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { createPartTypeRegistry } from '../parts/canonical-part-types.ts';
import { createTurnStateRegistry } from '../turn-states/turn-state-registry.ts';
import { buildRespondTool } from './respond-schema.ts';
import { RESPOND_SYSTEM_PROMPT, terminalToolsPromptSection } from './system-prompt.ts';

describe('respond() tool schema', () => {
  const partTypes = createPartTypeRegistry();
  partTypes.register({ partType: 'ta.slot', deliveryRules: { streaming: 'flush', buffered: 'drop' } });
  const tool = buildRespondTool(partTypes, createTurnStateRegistry());

  it('is named respond and requires parts and turnState', () => {
    expect(tool.name).toBe('respond');
    expect(tool.input_schema['required']).toEqual(['parts', 'turnState']);
  });

  it('is a valid JSON Schema that accepts a good call and rejects a bad one', () => {
    const validate = new Ajv({ strict: false }).compile(tool.input_schema);
    expect(validate({ parts: [{ text: 'hi', metadata: { partType: 'ack' } }], turnState: 'awaiting' })).toBe(true);
    expect(validate({ parts: [{ text: 'hi', metadata: { partType: 'ta.slot' } }], turnState: 'complete' })).toBe(true);
    expect(validate({ parts: [], turnState: 'awaiting' })).toBe(false);
    expect(validate({ parts: [{ text: 'hi', metadata: { partType: 'nope' } }], turnState: 'awaiting' })).toBe(false);
    expect(validate({ parts: [{ text: 'hi', metadata: { partType: 'approval-response' } }], turnState: 'complete' })).toBe(false);
  });

  it('has a system-prompt snippet that names every settling state', () => {
    for (const word of ['respond', 'awaiting', 'complete', 'clarifying', 'error', 'passed', 'passTo', 'ack']) {
      expect(RESPOND_SYSTEM_PROMPT).toContain(word);
    }
  });

  it('lists terminal tools in their own prompt section, and none when there are none', () => {
    expect(terminalToolsPromptSection([])).toBe('');
    expect(terminalToolsPromptSection([{ name: 'format_itinerary', description: 'Formats the itinerary.' }])).toContain(
      '- format_itinerary: Formats the itinerary.',
    );
  });
});
