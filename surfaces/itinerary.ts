/**
 * The surface of an itinerary (`itinerary`: the data format_itinerary's `itineraryData` makes): a
 * title, one Card per flight in travel order (airports, local departure and arrival, booking
 * reference) and a note that times are local.
 */
import { basicSurfaceMessage, defineSurface, type A2uiComponent } from 'switchboard';
import { asList, count, isFields, listOf, formatLocalDate, localTime, textOf, type Fields } from './_format.ts';

/** One flight as the data model holds it. */
interface LegItem {
  readonly heading: string;
  readonly route: string;
  readonly departs: string;
  readonly arrives: string;
  readonly reference: string;
}

function airport(flight: Fields, key: 'origin' | 'destination'): string {
  const code = textOf(flight, key);
  const name = flight[`${key}Name`];
  return typeof name === 'string' && name !== '' ? `${name} (${code})` : code;
}

function legItems(data: unknown): LegItem[] {
  const flights = asList(data).flatMap((itinerary) => {
    if (!isFields(itinerary)) throw new Error('an itinerary should be an object');
    return listOf(itinerary, 'flights');
  });
  return flights.map((flight, index) => {
    if (!isFields(flight)) throw new Error('each flight should be an object');
    const departure = textOf(flight, 'departure');
    const arrival = textOf(flight, 'arrival');
    return {
      heading: `Flight ${String(index + 1)} of ${String(flights.length)}: ${textOf(flight, 'flightNumber')}`,
      route: `${airport(flight, 'origin')} → ${airport(flight, 'destination')}`,
      departs: `Departs ${formatLocalDate(departure)}, ${localTime(departure)}`,
      arrives: `Arrives ${formatLocalDate(arrival)}, ${localTime(arrival)}`,
      reference: `Booking reference ${textOf(flight, 'bookingReference')}`,
    };
  });
}

function title(data: unknown, legs: number): string {
  const [first] = asList(data);
  const name = isFields(first) ? first['travellerName'] : undefined;
  const whose = typeof name === 'string' && name.trim() !== '' ? `Itinerary for ${name.trim()}` : 'Itinerary';
  return `${whose} (${count(legs, 'flight')})`;
}

const text = (id: string, path: string, variant = 'body'): A2uiComponent => ({ id, component: 'Text', variant, text: { path } });

const COMPONENTS: readonly A2uiComponent[] = [
  { id: 'root', component: 'Column', children: ['title', 'legs', 'note'] },
  text('title', '/title', 'h3'),
  { id: 'legs', component: 'List', listStyle: 'none', children: { componentId: 'leg', path: '/legs' } },
  { id: 'leg', component: 'Card', child: 'leg-body' },
  { id: 'leg-body', component: 'Column', children: ['leg-heading', 'leg-route', 'leg-departs', 'leg-arrives', 'leg-reference'] },
  text('leg-heading', 'heading', 'h4'),
  text('leg-route', 'route'),
  text('leg-departs', 'departs'),
  text('leg-arrives', 'arrives'),
  text('leg-reference', 'reference', 'caption'),
  { id: 'note', component: 'Text', variant: 'caption', text: 'All times are local to each airport.' },
];

export default defineSurface((data, { surfaceId }) => {
  const legs = legItems(data);
  return basicSurfaceMessage({ surfaceId, data: { title: title(data, legs.length), legs }, components: [...COMPONENTS] });
});
