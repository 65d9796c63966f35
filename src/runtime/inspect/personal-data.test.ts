import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../model/model-types.ts';
import { maskModelOutput, maskModelRequest } from './mask-model-call.ts';
import { maskPersonalData, maskPersonalDataText, MASKED } from './personal-data.ts';

const booking = { flightNumber: 'MW 304', passengers: [{ fullName: 'Ada Lovelace' }, { fullName: 'Grace Hopper' }], contact: { email: 'ada@example.com' } };

describe('personal data', () => {
  it('masks what each path reaches from the top, through arrays, leaving the input alone', () => {
    expect(maskPersonalData(booking, ['passengers/*/fullName', '/contact/email'])).toEqual({
      flightNumber: 'MW 304', passengers: [{ fullName: MASKED }, { fullName: MASKED }], contact: { email: MASKED },
    });
    expect(maskPersonalData(booking, ['passengers/fullName'])).toMatchObject({ passengers: [{ fullName: MASKED }, { fullName: MASKED }] });
    expect(maskPersonalData(booking, ['passengers/1/fullName'])).toMatchObject({ passengers: [{ fullName: 'Ada Lovelace' }, { fullName: MASKED }] });
    expect(maskPersonalData(booking, ['passengers'])).toMatchObject({ passengers: MASKED });
    expect(booking.passengers[0]?.fullName).toBe('Ada Lovelace');
    expect(maskPersonalData('text', ['a'])).toBe('text');
  });

  it('masks JSON results wherever the path appears, and leaves other text as it is', () => {
    const result = JSON.stringify({ reference: 'SB1', passengers: [{ fullName: 'Ada' }], domainData: { data: { passengers: [{ fullName: 'Ada' }] } } });
    expect(maskPersonalDataText(result, ['passengers/*/fullName'])).not.toContain('Ada');
    expect(maskPersonalDataText('Booked for Ada', ['passengers/*/fullName'])).toBe('Booked for Ada');
    expect(maskPersonalDataText('{not json', ['passengers'])).toBe('{not json');
  });

  it("masks a model call's tool calls and their results, by the tool each result answers", () => {
    const paths = (tool: string): readonly string[] => (tool === 'book' ? ['passengers/*/fullName'] : []);
    const request: ModelRequest = {
      model: 'm', maxTokens: 10, system: [], tools: [], toolChoice: 'any',
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'book', input: booking }, { type: 'tool_use', id: 't2', name: 'other', input: { fullName: 'Ada' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: JSON.stringify({ passengers: [{ fullName: 'Ada' }] }) }, { type: 'tool_result', tool_use_id: 't2', content: '{"fullName":"Ada"}' }] },
      ],
    };
    const masked = JSON.stringify(maskModelRequest(request, paths));
    expect(masked).not.toContain('Lovelace');
    expect(masked.match(/Ada/g)).toHaveLength(2);
    expect(maskModelOutput([{ type: 'tool_use', id: 't3', name: 'book', input: booking }, { type: 'text', text: 'hi' }], paths)).toEqual([
      { type: 'tool_use', id: 't3', name: 'book', input: maskPersonalData(booking, ['passengers/*/fullName']) },
      { type: 'text', text: 'hi' },
    ]);
  });
});
