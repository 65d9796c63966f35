/**
 * The surface of a confirmed booking (`booking`, from book_flight): a Card per booking with its
 * reference, the flight, its local times, the travellers and the total paid.
 */
import { basicSurfaceMessage, defineSurface, type A2uiComponent } from 'switchboard';
import { asList, fieldsOf, isFields, listOf, formatLocalDate, localTime, money, numberOf, textOf, timeOnDay } from './_format.ts';

/** One booking as the data model holds it. */
interface BookingItem {
  readonly status: string;
  readonly reference: string;
  readonly flight: string;
  readonly route: string;
  readonly times: string;
  readonly travellers: readonly { readonly name: string }[];
  readonly total: string;
}

function bookingItem(booking: unknown): BookingItem {
  if (!isFields(booking)) throw new Error('a booking should be an object');
  const flight = fieldsOf(booking, 'flight');
  const departure = textOf(flight, 'departure');
  return {
    status: textOf(booking, 'status') === 'confirmed' ? 'Booking confirmed' : `Booking ${textOf(booking, 'status')}`,
    reference: `Reference ${textOf(booking, 'bookingReference')}`,
    flight: `${textOf(flight, 'flightNumber')} · ${textOf(flight, 'airline')}`,
    route: `${textOf(flight, 'origin')} → ${textOf(flight, 'destination')}`,
    times: `${formatLocalDate(departure)}: departs ${localTime(departure)}, arrives ${timeOnDay(textOf(flight, 'arrival'), departure)} (local times)`,
    travellers: listOf(booking, 'passengers').map((passenger) => {
      if (!isFields(passenger)) throw new Error('each passenger should be an object');
      return { name: textOf(passenger, 'fullName') };
    }),
    total: `Total paid: ${money(numberOf(booking, 'totalCost'), textOf(booking, 'currency'))}`,
  };
}

const text = (id: string, path: string, variant = 'body'): A2uiComponent => ({ id, component: 'Text', variant, text: { path } });

const COMPONENTS: readonly A2uiComponent[] = [
  { id: 'root', component: 'Column', children: { componentId: 'booking', path: '/bookings' } },
  { id: 'booking', component: 'Card', child: 'booking-body' },
  {
    id: 'booking-body',
    component: 'Column',
    children: ['booking-status', 'booking-reference', 'booking-flight', 'booking-route', 'booking-times', 'booking-travellers-label', 'booking-travellers', 'booking-total'],
  },
  text('booking-status', 'status', 'caption'),
  text('booking-reference', 'reference', 'h3'),
  text('booking-flight', 'flight', 'h4'),
  text('booking-route', 'route'),
  text('booking-times', 'times'),
  { id: 'booking-travellers-label', component: 'Text', variant: 'body', text: 'Travellers:' },
  { id: 'booking-travellers', component: 'List', listStyle: 'unordered', children: { componentId: 'booking-traveller', path: 'travellers' } },
  text('booking-traveller', 'name'),
  text('booking-total', 'total'),
];

export default defineSurface((data, { surfaceId }) =>
  basicSurfaceMessage({ surfaceId, data: { bookings: asList(data).map(bookingItem) }, components: [...COMPONENTS] }),
);
