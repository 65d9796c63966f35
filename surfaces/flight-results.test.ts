import { describe, expect, it } from 'vitest';
import { checkSurfaceMessage } from 'switchboard';
import { toolContext } from 'switchboard/testing';
import searchFlights, { type SearchFlightsArgs } from '../tools/search_flights.ts';
import { render, templateContext, type RenderedButton } from './_rendered.ts';
import flightResults from './flight-results.ts';

const context = templateContext('flight-results');

/** What each button sends, pressed one after the other. */
async function pressEach(buttons: readonly RenderedButton[]) {
  const sent = [];
  for (const button of buttons) sent.push(await button.press());
  return sent;
}

async function searched(args: SearchFlightsArgs) {
  return (await searchFlights.handler(args, toolContext())).domainData.data;
}

describe('the flight-results surface', () => {
  it('is a sound surface for a real search, one Card per flight in a List', async () => {
    const data = await searched({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 });
    const message = flightResults(data, context);
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(message.updateComponents.components.find((component) => component.id === 'flights')).toMatchObject({
      component: 'List',
      children: { componentId: 'flight', path: '/flights' },
    });
    const { texts, buttons } = render(message);
    expect(texts.slice(0, 7)).toEqual([
      '4 flights LHR → CDG on Fri 18 Dec 2026',
      'NX 402 · Northwind Express',
      'LHR → CDG',
      expect.stringMatching(/^Departs \d\d:\d\d, arrives \d\d:\d\d \(local times\)$/) as unknown,
      expect.stringMatching(/^(Nonstop|\d stops?)$/) as unknown,
      'GBP 144.00 for 2 passengers (GBP 72.00 each)',
      'Book',
    ]);
    expect(buttons.map((button) => button.label)).toEqual(['Book', 'Book', 'Book', 'Book']);
  });

  it('gives each Book button the values of its own flight', async () => {
    const data = await searched({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 });
    const { buttons } = render(flightResults(data, context));
    const pressed = await pressEach(buttons);
    expect(pressed).toEqual(
      data.flights.map((flight) => ({
        name: 'book',
        context: { flightNumber: flight.flightNumber, date: '2026-12-18', passengers: 2, totalCost: flight.totalPrice, currency: flight.currency },
      })),
    );
    expect(pressed[2]).toEqual({ name: 'book', context: { flightNumber: 'MW 304', date: '2026-12-18', passengers: 2, totalCost: 236, currency: 'GBP' } });
  });

  it('prices a single traveller without a per-person note', async () => {
    const data = await searched({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 1 });
    expect(render(flightResults(data, context)).texts).toContain('GBP 72.00 for 1 passenger');
  });

  it('says when the search found nothing, with no List', async () => {
    const data = await searched({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 9, maxStops: 0 });
    const message = flightResults({ ...data, flights: [] }, context);
    expect(checkSurfaceMessage(message)).toEqual([]);
    expect(render(message)).toMatchObject({ texts: ['No flights LHR → CDG on Fri 18 Dec 2026'], buttons: [] });
  });

  it('shows the flights of every search when the data is appended', async () => {
    const outbound = await searched({ origin: 'LHR', destination: 'CDG', date: '2026-12-18', passengers: 2 });
    const back = await searched({ origin: 'CDG', destination: 'LHR', date: '2027-01-04', passengers: 2 });
    const message = flightResults([outbound, back], { ...context, mergeStrategy: 'append' });
    expect(checkSurfaceMessage(message)).toEqual([]);
    const pressed = await pressEach(render(message).buttons);
    expect(pressed.map(({ context: sent }) => sent['date'])).toEqual([...outbound.flights.map(() => '2026-12-18'), ...back.flights.map(() => '2027-01-04')]);
  });

  it('throws on data that is not a search result, so the envelope goes without it', () => {
    expect(() => flightResults({ route: { origin: 'LHR', destination: 'CDG' }, passengers: 1, flights: 'none' }, context)).toThrow('"flights" should be a list');
  });
});
