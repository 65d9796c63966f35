import { describe, expect, it } from 'vitest';
import { BOOKING, FLIGHT_RESULTS } from './fixtures/flight-data.ts';
import { bookingTemplate, flightResultsTemplate } from './flight-templates.ts';
import { renderHtml } from './render-html.ts';
import { renderPlain } from './render-plain.ts';
import { renderWhatsApp } from './render-whatsapp.ts';
import type { DataTemplate } from './template-types.ts';

function render(template: DataTemplate, value: unknown, target: 'plain' | 'whatsapp' | 'html'): string | undefined {
  const content = template(value, { kind: 'test', format: target === 'html' ? 'html' : 'text' });
  if (content === undefined) return undefined;
  const root = { type: 'root', children: content } as const;
  return target === 'plain' ? renderPlain(root) : target === 'whatsapp' ? renderWhatsApp(root) : renderHtml(root);
}

describe('flightResultsTemplate', () => {
  it('renders one readable line per flight for text targets', () => {
    expect(render(flightResultsTemplate, FLIGHT_RESULTS, 'plain')).toBe(
      [
        'Flights LHR → CDG, Fri 18 Dec 2026, 2 passengers',
        '- AU 1021 Aurora Air, 18 Dec 09:10 → 11:25, direct, £94 pp, £188 total, 3 seats left',
        '- NX 880 Northwind Express, 18 Dec 23:05 → 02:40 (+1 day), 1 stop, €71.50 pp, €143 total',
      ].join('\n'),
    );
  });

  it('says pp only for one passenger and handles an empty result', () => {
    const single = { ...FLIGHT_RESULTS, passengers: 1, flights: [FLIGHT_RESULTS.flights[0]] };
    expect(render(flightResultsTemplate, single, 'whatsapp')).toBe(
      '*Flights LHR → CDG, Fri 18 Dec 2026*\n- AU 1021 Aurora Air, 18 Dec 09:10 → 11:25, direct, £94 pp, 3 seats left',
    );
    expect(render(flightResultsTemplate, { ...FLIGHT_RESULTS, flights: [] }, 'plain')).toBe(
      'Flights LHR → CDG, Fri 18 Dec 2026, 2 passengers\nNo flights found.',
    );
  });

  it('renders an HTML table for e-mail', () => {
    expect(render(flightResultsTemplate, FLIGHT_RESULTS, 'html')).toBe(
      [
        '<h4>Flights LHR → CDG, Fri 18 Dec 2026, 2 passengers</h4>',
        '<table>',
        '<thead>',
        '<tr><th>Flight</th><th>Departs</th><th>Arrives</th><th>Stops</th><th>Price</th><th>Seats</th></tr>',
        '</thead>',
        '<tbody>',
        '<tr><td>AU 1021 Aurora Air</td><td>18 Dec 09:10</td><td>11:25</td><td>direct</td><td>£94 pp, £188 total</td><td>3 seats left</td></tr>',
        '<tr><td>NX 880 Northwind Express</td><td>18 Dec 23:05</td><td>02:40 (+1 day)</td><td>1 stop</td><td>€71.50 pp, €143 total</td><td></td></tr>',
        '</tbody>',
        '</table>',
      ].join('\n'),
    );
  });

  it('declines values of another shape', () => {
    expect(flightResultsTemplate({ offers: [] }, { kind: 'flight-results', format: 'text' })).toBeUndefined();
    expect(flightResultsTemplate('flights', { kind: 'flight-results', format: 'text' })).toBeUndefined();
  });

  it('never lets data be read as markup', () => {
    const tricky = { flights: [{ flightNumber: '**XX 1**', airline: '<b>Evil</b> [x](javascript:y)' }] };
    expect(render(flightResultsTemplate, tricky, 'html')).toContain('<td>**XX 1** &lt;b&gt;Evil&lt;/b&gt; [x](javascript:y)</td>');
  });
});

describe('bookingTemplate', () => {
  it('renders reference, flight, passengers and total as lines', () => {
    expect(render(bookingTemplate, BOOKING, 'plain')).toBe(
      [
        'Booking confirmed',
        'Reference: SB7K2M9Q',
        'Flight: MW 304 Meridian Airways, LHR 07:25 → CDG 09:40, Fri 18 Dec 2026',
        'Passengers: Ada Lovelace, Alan Turing',
        'Total: £236',
      ].join('\n'),
    );
    expect(render(bookingTemplate, BOOKING, 'whatsapp')).toBe(
      '*Booking confirmed*\n*Reference:* SB7K2M9Q\n*Flight:* MW 304 Meridian Airways, LHR 07:25 → CDG 09:40, Fri 18 Dec 2026\n*Passengers:* Ada Lovelace, Alan Turing\n*Total:* £236',
    );
  });

  it('renders lines with breaks in HTML and declines other shapes', () => {
    expect(render(bookingTemplate, { bookingReference: 'SB1', passengers: [{ fullName: 'Ada' }] }, 'html')).toBe(
      '<h4>Booking confirmed</h4>\n<p><strong>Reference:</strong> SB1<br /><strong>Passenger:</strong> Ada</p>',
    );
    expect(bookingTemplate({ total: 3 }, { kind: 'booking', format: 'text' })).toBeUndefined();
  });
});
