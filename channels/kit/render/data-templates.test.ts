import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/protocol/errors.ts';
import { createDataTemplates, dataEntries } from './data-templates.ts';
import { BOOKING, FLIGHT_RESULTS } from './fixtures/flight-data.ts';
import { genericTemplate, humanise } from './generic-template.ts';
import { paragraphNode } from './mdast-build.ts';
import { renderHtml } from './render-html.ts';
import { renderPlain } from './render-plain.ts';
import { renderSlack } from './render-slack.ts';
import { renderWhatsApp } from './render-whatsapp.ts';

const plain = (kind: string, value: unknown): string => renderPlain({ type: 'root', children: genericTemplate(kind, value) });

describe('createDataTemplates', () => {
  it('has the built-in flight templates, and none when asked', () => {
    expect(createDataTemplates().get('flight-results')).toBeDefined();
    expect(createDataTemplates().get('booking')).toBeDefined();
    expect(createDataTemplates({ builtIns: false }).get('booking')).toBeUndefined();
  });

  it('registers templates and refuses empty or duplicate kinds', () => {
    const templates = createDataTemplates();
    templates.register('weather', (value) => [paragraphNode(`Weather: ${(value as { sky: string }).sky}`)]);
    expect(renderPlain({ type: 'root', children: templates.render('weather', { sky: 'sunny' }, 'text') })).toBe('Weather: sunny');
    expect(() => {
      templates.register('weather', () => []);
    }).toThrow(SwitchboardError);
    expect(() => {
      templates.register('', () => []);
    }).toThrow(/non-empty/);
  });

  it('falls back to the generic rendering for unknown kinds and for values a template declines', () => {
    const templates = createDataTemplates();
    expect(renderPlain({ type: 'root', children: templates.render('hotel', { name: 'Casa Rosa' }, 'text') })).toBe('Hotel\n- Name: Casa Rosa');
    expect(renderPlain({ type: 'root', children: templates.render('booking', { note: 'pending' }, 'text') })).toBe('Booking\n- Note: pending');
  });
});

describe('dataEntries', () => {
  const templates = createDataTemplates();

  it('reads a tool result { kind, data }, a { kind, ...fields } object, and the collected form', () => {
    expect(dataEntries({ kind: 'booking', data: BOOKING }, templates)).toEqual([{ kind: 'booking', value: BOOKING }]);
    expect(dataEntries({ kind: 'hotel', name: 'Casa' }, templates)).toEqual([{ kind: 'hotel', value: { name: 'Casa' } }]);
    expect(dataEntries({ 'flight-results': FLIGHT_RESULTS, booking: BOOKING }, templates)).toEqual([
      { kind: 'flight-results', value: FLIGHT_RESULTS },
      { kind: 'booking', value: BOOKING },
    ]);
  });

  it('spreads appended lists of a templated kind, keeps other lists whole', () => {
    expect(dataEntries({ booking: [BOOKING, BOOKING], tags: ['a', 'b'] }, templates)).toEqual([
      { kind: 'booking', value: BOOKING },
      { kind: 'booking', value: BOOKING },
      { kind: 'tags', value: ['a', 'b'] },
    ]);
    expect(dataEntries('nope', templates)).toEqual([]);
  });
});

describe('genericTemplate', () => {
  it('humanises keys', () => {
    expect(['checkInDate', 'check_in_date', 'check-in-date', 'URL'].map(humanise)).toEqual(['Check in date', 'Check in date', 'Check in date', 'Url']);
  });

  it('renders key: value lines, nested objects flattened, lists as lists', () => {
    const value = {
      name: 'Casa Rosa',
      room: { type: 'double', beds: 2, view: { side: 'sea' } },
      amenities: ['wifi', 'breakfast'],
      guests: [{ fullName: 'Ada' }, { fullName: 'Alan' }],
      rates: [
        { night: '2026-12-18', price: 112 },
        { night: '2026-12-19', price: 120 },
      ],
      refundable: false,
      notes: null,
    };
    expect(plain('hotel-offer', value)).toBe(
      [
        'Hotel offer',
        '- Name: Casa Rosa',
        '- Room type: double',
        '- Room beds: 2',
        '- Room view side: sea',
        '- Amenities: wifi, breakfast',
        '- Guests: Ada, Alan',
        '- Rates:',
        '  - Night: 2026-12-18, Price: 112',
        '  - Night: 2026-12-19, Price: 120',
        '- Refundable: no',
      ].join('\n'),
    );
  });

  it('caps lines, value lengths and depth', () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`k${index}`, index]));
    const text = renderPlain({ type: 'root', children: genericTemplate('many', many, { maxLines: 5 }) });
    expect(text.split('\n')).toHaveLength(7);
    expect(text.endsWith('- … and 20 more')).toBe(true);
    expect(plain('long', { text: 'x'.repeat(500) })).toBe(`Long\n- Text: ${'x'.repeat(159)}…`);
    expect(plain('deep', { a: { b: { c: { d: { e: { f: 1 } } } } } })).toBe('Deep\n- A b c d: (more)');
  });

  it('never shows JSON for unknown kinds, whatever their data', () => {
    // Keys and strings without braces or quotes of their own: any brace or quote in the output would come from JSON.
    const key = fc.string({ minLength: 1, maxLength: 8 }).filter((text) => /^[A-Za-z][^{}"]*$/.test(text));
    const leaf = fc.oneof(fc.string({ maxLength: 20 }).map((text) => text.replace(/[{}"]/g, '')), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('object'), tie('array')),
      object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
      array: fc.array(tie('value'), { maxLength: 4 }),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, json.value, { minKeys: 1, maxKeys: 6 }), (data) => {
        const children = createDataTemplates().render('mystery-kind', data, 'text');
        const root = { type: 'root', children } as const;
        for (const output of [renderPlain(root), renderWhatsApp(root), renderSlack(root), renderHtml(root)]) {
          expect(output).not.toContain('{');
          expect(output).not.toMatch(/"[^"]*":/);
        }
      }),
      { numRuns: 200 },
    );
  });
});
