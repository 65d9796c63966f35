import { describe, expect, it } from 'vitest';
import { amountText, isMoneyKey } from './argument-lines.ts';
import { bookFlightSentence } from './book-flight-sentence.ts';
import { formatIsoText, formatMoney, truncate } from './format-value.ts';
import { humaniseKey } from './humanise-key.ts';
import { durationWords } from './time-phrases.ts';

describe('humaniseKey', () => {
  it.each([
    ['totalCost', 'Total cost'],
    ['flight_number', 'Flight number'],
    ['passengerIDs', 'Passenger IDs'],
    ['HTMLBody', 'HTML body'],
    ['return-date', 'Return date'],
    ['addressLine2', 'Address line 2'],
    ['IATA_code', 'IATA code'],
    ['', 'Value'],
  ])('%s → %s', (key, words) => {
    expect(humaniseKey(key)).toBe(words);
  });
});

describe('values', () => {
  it('formats ISO dates and times as written, and leaves other text alone', () => {
    expect(formatIsoText('2026-12-18')).toBe('Fri 18 Dec 2026');
    expect(formatIsoText('2026-12-18T07:25:00Z')).toBe('Fri 18 Dec 2026, 07:25 UTC');
    expect(formatIsoText('2026-12-18T07:25:00.000-0500')).toBe('Fri 18 Dec 2026, 07:25 UTC-05:00');
    expect(formatIsoText('2026-12-18T07:25')).toBe('Fri 18 Dec 2026, 07:25');
    expect(formatIsoText('2026-02-30')).toBeUndefined();
    expect(formatIsoText('MW 304')).toBeUndefined();
  });

  it('formats money with its code and the currency\'s decimals', () => {
    expect(formatMoney(412.5, 'eur')).toBe('EUR 412.50');
    expect(formatMoney(1412.5, 'JPY')).toBe('JPY 1,413');
    expect(isMoneyKey('totalCost')).toBe(true);
    expect(isMoneyKey('price_cents')).toBe(false);
    expect(amountText({ price: 12, total: 30, currency: 'GBP' })).toBe('GBP 30.00');
    expect(amountText({ amount: 7 })).toBe('7');
    expect(amountText({ passengers: 2 })).toBeUndefined();
  });

  it('truncates by code points with three dots', () => {
    expect(truncate('abcdefghij', 8)).toBe('abcde...');
    expect(truncate('abc', 8)).toBe('abc');
    expect(truncate('😀😀😀😀😀😀', 5)).toBe('😀😀...');
  });

  it('says durations as a person would', () => {
    expect(durationWords(20_000)).toBe('less than a minute');
    expect(durationWords(60_000)).toBe('1 minute');
    expect(durationWords(45 * 60_000)).toBe('45 minutes');
    expect(durationWords(90 * 60_000)).toBe('1 hour 30 minutes');
    expect(durationWords(4 * 3_600_000 - 60_000)).toBe('4 hours');
    expect(durationWords(3 * 86_400_000)).toBe('3 days');
  });
});

describe('bookFlightSentence', () => {
  it('reads what it can from unchecked arguments', () => {
    expect(bookFlightSentence({})).toBe('book flight');
    expect(bookFlightSentence({ flightNumber: 'MW 304', passengers: 'Ada', totalCost: '10' })).toBe('book flight MW 304');
    const many = ['Ada', 'Grace', 'Alan', 'Edsger'].map((fullName) => ({ fullName }));
    expect(bookFlightSentence({ passengers: many, totalCost: 40 })).toBe('book flight for Ada and 3 others, 40');
  });
});
