import { describe, expect, it } from 'vitest';
import { webMessage } from '../../../test/fakes/fake-wwebjs-message.ts';
import { readWebMessage, type ReadWebMessageContext } from './read-web-message.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const context: ReadWebMessageContext = {
  client: { getContactLidAndPhone: () => Promise.resolve([]) },
  botIds: new Set(),
  groups: 'mentions',
  artifacts: { put: () => Promise.reject(new Error('no media expected')) },
  maxMediaBytes: 1024,
  clock: () => NOW,
};

describe('readWebMessage', () => {
  it('stamps a message with its own time', async () => {
    const read = await readWebMessage(webMessage('text-message', { timestamp: 1_772_366_400 }), context);
    expect(read).toMatchObject({ event: { receivedAt: '2026-03-01T12:00:00.000Z' } });
  });

  it.each([Number.NaN, Infinity, -1, 1e15])('stamps a message whose timestamp is %s with the clock\'s time, instead of rejecting', async (timestamp) => {
    // Counterexample found by read-web-message.properties.test.ts: `timestamp: NaN` rejected with "RangeError: Invalid time value".
    const read = await readWebMessage(webMessage('text-message', { timestamp }), context);
    expect(read).toMatchObject({ event: { receivedAt: NOW.toISOString() } });
  });
});
