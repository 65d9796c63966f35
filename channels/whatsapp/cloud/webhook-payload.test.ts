/** Reading Meta's webhook JSON: the recorded payloads, other fields, malformed parts. */
import { describe, expect, it } from 'vitest';
import { readWhatsAppFixture } from '../../../test/fakes/whatsapp-webhook.ts';
import { readCloudWebhook } from './webhook-payload.ts';

describe('readCloudWebhook', () => {
  it('reads a text message with its number, contact and context-free fields', () => {
    const webhook = readCloudWebhook(readWhatsAppFixture('webhook-text'));
    expect(webhook.object).toBe('whatsapp_business_account');
    expect(webhook.skipped).toBe(0);
    const change = webhook.changes[0];
    expect(change).toMatchObject({ phoneNumberId: '106540352242922', contacts: [{ waId: '16505551234', name: 'Sheena Nelson' }], statuses: [] });
    expect(change?.messages[0]).toMatchObject({ from: '16505551234', type: 'text', timestamp: '1750090702', errors: [] });
    expect(change?.messages[0]?.contextId).toBeUndefined();
  });

  it('reads the context of a button reply and the errors of an unsupported message', () => {
    const reply = readCloudWebhook(readWhatsAppFixture('webhook-button-reply')).changes[0]?.messages[0];
    expect(reply?.contextId).toBe('wamid.HBgLMTY1MDU1NTEyMzQVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA');
    const unsupported = readCloudWebhook(readWhatsAppFixture('webhook-unsupported')).changes[0]?.messages[0];
    expect(unsupported?.errors).toEqual([{ code: 131051, title: 'Message type unknown', details: 'Message type is currently not supported.' }]);
  });

  it('reads statuses, with the errors of a failed one', () => {
    const delivered = readCloudWebhook(readWhatsAppFixture('webhook-status-delivered')).changes[0];
    expect(delivered?.messages).toEqual([]);
    expect(delivered?.statuses).toEqual([{ id: 'wamid.HBgLMTY1MDU1NTEyMzQVAgARGBI4MkVBQjJGRDg3RjE4NjNBNzkA', status: 'delivered', timestamp: '1750091530', recipientId: '16505551234', errors: [] }]);
    const failed = readCloudWebhook(readWhatsAppFixture('webhook-status-failed-131047')).changes[0]?.statuses[0];
    expect(failed?.errors[0]).toMatchObject({ code: 131047, title: 'Re-engagement message' });
  });

  it('leaves out changes of other fields and counts malformed messages, never throwing', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [{
        id: '1',
        changes: [
          { field: 'message_template_status_update', value: { event: 'APPROVED' } },
          { field: 'messages', value: { metadata: { phone_number_id: '9' }, messages: [{ id: 'wamid.x' }, 'junk', { id: 'wamid.y', from: '1', type: 'text' }] } },
        ],
      }],
    };
    const webhook = readCloudWebhook(body);
    expect(webhook.changes).toHaveLength(1);
    expect(webhook.changes[0]?.messages.map((message) => message.id)).toEqual(['wamid.y']);
    expect(webhook.skipped).toBe(3);
    expect(readCloudWebhook(null)).toEqual({ object: undefined, changes: [], skipped: 0 });
    expect(readCloudWebhook({ object: 'page', entry: 'x' })).toEqual({ object: 'page', changes: [], skipped: 0 });
  });
});
