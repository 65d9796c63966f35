/**
 * The surface of search_flights' results (`flight-results`): a title and a List with one Card per
 * flight (flight number and airline, route, local times, stops, the price for the whole party) and a
 * Book button. Pressing Book sends the event `book` with that flight's `{ flightNumber, date,
 * passengers, totalCost, currency }`: the arguments book_flight needs besides the travellers' names.
 */
import { basicSurfaceMessage, defineSurface, type A2uiComponent } from 'switchboard';
import { asList, count, fieldsOf, isFields, listOf, formatLocalDate, localTime, money, numberOf, textOf, timeOnDay, type Fields } from './_format.ts';

/** One flight as the data model holds it: the lines a Card shows and the Book button's context. */
interface FlightItem {
  readonly heading: string;
  readonly route: string;
  readonly times: string;
  readonly stops: string;
  readonly price: string;
  readonly flightNumber: string;
  /** Local departure date, `YYYY-MM-DD`. */
  readonly date: string;
  readonly passengers: number;
  readonly totalCost: number;
  readonly currency: string;
}

function flightItem(flight: Fields, passengers: number): FlightItem {
  const departure = textOf(flight, 'departure');
  const arrival = textOf(flight, 'arrival');
  const currency = textOf(flight, 'currency');
  const totalCost = numberOf(flight, 'totalPrice');
  const stops = numberOf(flight, 'stops');
  const each = passengers === 1 ? '' : ` (${money(numberOf(flight, 'pricePerPerson'), currency)} each)`;
  return {
    heading: `${textOf(flight, 'flightNumber')} · ${textOf(flight, 'airline')}`,
    route: `${textOf(flight, 'origin')} → ${textOf(flight, 'destination')}`,
    times: `Departs ${localTime(departure)}, arrives ${timeOnDay(arrival, departure)} (local times)`,
    stops: stops === 0 ? 'Nonstop' : count(stops, 'stop'),
    price: `${money(totalCost, currency)} for ${count(passengers, 'passenger')}${each}`,
    flightNumber: textOf(flight, 'flightNumber'),
    date: departure.slice(0, 10),
    passengers,
    totalCost,
    currency,
  };
}

/** The flights of every search in the data, in order. */
function flightItems(data: unknown): FlightItem[] {
  return asList(data).flatMap((result) => {
    if (!isFields(result)) throw new Error('a flight search result should be an object');
    const passengers = numberOf(result, 'passengers');
    return listOf(result, 'flights').map((flight) => {
      if (!isFields(flight)) throw new Error('each flight should be an object');
      return flightItem(flight, passengers);
    });
  });
}

function title(data: unknown, flights: number): string {
  const [first] = asList(data);
  const route = fieldsOf(first, 'route');
  const date = isFields(first) ? textOf(first, 'date') : '';
  const where = `${textOf(route, 'origin')} → ${textOf(route, 'destination')} on ${formatLocalDate(date)}`;
  return flights === 0 ? `No flights ${where}` : `${count(flights, 'flight')} ${where}`;
}

const text = (id: string, path: string, variant = 'body'): A2uiComponent => ({ id, component: 'Text', variant, text: { path } });

/** The Card repeated for each item of `/flights`; its bindings are relative to that item. */
const FLIGHT_CARD: readonly A2uiComponent[] = [
  { id: 'flight', component: 'Card', child: 'flight-body' },
  { id: 'flight-body', component: 'Column', children: ['flight-heading', 'flight-route', 'flight-times', 'flight-stops', 'flight-price', 'flight-book'] },
  text('flight-heading', 'heading', 'h4'),
  text('flight-route', 'route'),
  text('flight-times', 'times'),
  text('flight-stops', 'stops', 'caption'),
  text('flight-price', 'price'),
  {
    id: 'flight-book',
    component: 'Button',
    child: 'flight-book-label',
    variant: 'primary',
    action: {
      event: {
        name: 'book',
        context: {
          flightNumber: { path: 'flightNumber' },
          date: { path: 'date' },
          passengers: { path: 'passengers' },
          totalCost: { path: 'totalCost' },
          currency: { path: 'currency' },
        },
      },
    },
  },
  { id: 'flight-book-label', component: 'Text', text: 'Book' },
];

export default defineSurface((data, { surfaceId }) => {
  const flights = flightItems(data);
  const components: A2uiComponent[] =
    flights.length === 0
      ? [{ id: 'root', component: 'Column', children: ['title'] }, text('title', '/title', 'h3')]
      : [
          { id: 'root', component: 'Column', children: ['title', 'flights'] },
          text('title', '/title', 'h3'),
          { id: 'flights', component: 'List', children: { componentId: 'flight', path: '/flights' } },
          ...FLIGHT_CARD,
        ];
  return basicSurfaceMessage({ surfaceId, data: { title: title(data, flights.length), flights }, components });
});
