import { describe, expect, it } from 'vitest';
import type { OutboundDelivery } from '../../../queues/outbound-types.ts';
import { createWhatsAppSender } from '../send.ts';
import type { WhatsAppTransport } from '../transport.ts';
import { createWebFindSent } from './find-sent.ts';
import { webKeys } from './web-keys.ts';

const PREFIX = 'sb';

/** A Redis `get` over a map, as the holder's `sent:<key>` records would be. */
function records(entries: Record<string, string>): { get(key: string): Promise<string | null> } {
  return { get: (key) => Promise.resolve(entries[key] ?? null) };
}

describe('createWebFindSent', () => {
  const sentKey = webKeys(PREFIX).sent('k-1');

  it('answers sent with the message id the session holder recorded', async () => {
    const findSent = createWebFindSent({ redis: records({ [sentKey]: 'true_123@c.us_3EB0' }), prefix: PREFIX, timeoutMs: 30_000 });
    expect(await findSent('k-1', { since: Date.now() })).toEqual({ kind: 'sent', receipt: { providerMessageId: 'true_123@c.us_3EB0', details: { via: 'web' } } });
  });

  it('answers absent without a record only once the request and its margin are past', async () => {
    const findSent = createWebFindSent({ redis: records({}), prefix: PREFIX, timeoutMs: 30_000 });
    expect(await findSent('k-1', { since: Date.now() - 61_000 })).toEqual({ kind: 'absent' });
    expect(await findSent('k-1', { since: Date.now() - 1000 })).toMatchObject({ kind: 'pending' });
  });
});

describe('the WhatsApp sender', () => {
  const transport = (findSent?: WhatsAppTransport['findSent']): WhatsAppTransport => ({
    via: findSent === undefined ? 'cloud' : 'web',
    send: () => Promise.resolve({ id: 'wamid.1' }),
    ...(findSent === undefined ? {} : { findSent }),
  });
  const options = { windows: { isOpen: () => Promise.resolve(true) }, templates: {}, clock: () => new Date() };
  const delivery: OutboundDelivery = { channel: 'whatsapp', destination: { channel: 'whatsapp', address: '+447700900123' }, idempotencyKey: 'k-1', payload: {} };

  it('asks the transport that can tell, by the delivery key, and has no look-up with the Cloud API', async () => {
    const asked: string[] = [];
    const web = createWhatsAppSender({ ...options, transport: transport((key) => { asked.push(key); return Promise.resolve({ kind: 'absent' }); }) });
    expect(await web.findSent?.(delivery, { since: 0 })).toEqual({ kind: 'absent' });
    expect(asked).toEqual(['k-1']);
    expect('findSent' in createWhatsAppSender({ ...options, transport: transport() })).toBe(false);
  });
});
