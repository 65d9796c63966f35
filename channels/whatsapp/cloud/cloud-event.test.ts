/** A read Cloud API message as the channel's event: sender, profile name, time, quote, notes. */
import { describe, expect, it } from 'vitest';
import { cloudEvent, receivedAt } from './cloud-event.ts';
import type { CloudMessage } from './webhook-payload.ts';

const now = new Date('2026-01-02T03:04:05.000Z');
const message: CloudMessage = { id: 'wamid.M', from: '447700900123', type: 'image', timestamp: '1750090702', contextId: 'wamid.Q', errors: [], fields: {} };

describe('receivedAt', () => {
  it('reads Meta\'s Unix seconds, else uses now', () => {
    expect(receivedAt('1750090702', now)).toBe('2025-06-16T16:18:22.000Z');
    expect(receivedAt(undefined, now)).toBe(now.toISOString());
    expect(receivedAt('soon', now)).toBe(now.toISOString());
    expect(receivedAt('-5', now)).toBe(now.toISOString());
  });
});

describe('cloudEvent', () => {
  it('makes a message event with the kept media, the reading\'s notes then the media notes', () => {
    const stored = [{ artifactId: 'A'.repeat(22), name: 'image.jpg', mimeType: 'image/jpeg', sizeBytes: 10 }];
    const event = cloudEvent({
      message, reading: { kind: 'message', text: 'caption', notes: ['n1'] }, contacts: [{ waId: '447700900123', name: 'Ada' }, { waId: '1', name: 'Other' }],
      media: { stored, notes: ['n2'] }, now,
    });
    expect(event).toEqual({
      type: 'whatsapp', via: 'cloud', messageId: 'wamid.M', from: '+447700900123', profileName: 'Ada', quotedId: 'wamid.Q',
      receivedAt: '2025-06-16T16:18:22.000Z', text: 'caption', attachments: stored, notes: ['n1', 'n2'],
    });
  });

  it('makes an approval event without a profile name when no contact matches', () => {
    const event = cloudEvent({ message, reading: { kind: 'approval', button: { approvalId: 'a1', decision: 'denied' } }, contacts: [], media: { stored: [], notes: [] }, now });
    expect(event).toEqual({ type: 'whatsapp-approval', via: 'cloud', messageId: 'wamid.M', from: '+447700900123', quotedId: 'wamid.Q', receivedAt: '2025-06-16T16:18:22.000Z', approvalId: 'a1', decision: 'denied' });
  });
});
