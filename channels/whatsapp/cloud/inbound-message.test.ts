/**
 * What each recorded kind of Cloud API message amounts to: text, media captions, approval button
 * taps (reply buttons and template quick replies), other buttons and list replies as their titles,
 * locations and contacts as text, reactions ignored, unsupported messages as a note.
 */
import { describe, expect, it } from 'vitest';
import { readWhatsAppFixture, type MessageFixtureName } from '../../../test/fakes/whatsapp-webhook.ts';
import { mediumOf, readCloudMessage } from './inbound-message.ts';
import { readCloudWebhook, type CloudMessage } from './webhook-payload.ts';

function fixtureMessage(name: MessageFixtureName): CloudMessage {
  const message = readCloudWebhook(readWhatsAppFixture(name)).changes[0]?.messages[0];
  if (message === undefined) throw new Error(`${name} has no message`);
  return message;
}

function withFields(name: MessageFixtureName, fields: Record<string, unknown>): CloudMessage {
  const message = fixtureMessage(name);
  return { ...message, fields: { ...message.fields, ...fields } };
}

describe('readCloudMessage', () => {
  it('reads text and media captions', () => {
    expect(readCloudMessage(fixtureMessage('webhook-text'))).toEqual({ kind: 'message', text: 'Is the 07:25 flight still on time?', notes: [] });
    expect(readCloudMessage(fixtureMessage('webhook-image'))).toEqual({ kind: 'message', text: 'My boarding pass', notes: [] });
    expect(readCloudMessage(fixtureMessage('webhook-voice'))).toEqual({ kind: 'message', text: '', notes: [] });
  });

  it('reads an approval reply button and an approval quick reply as decisions', () => {
    expect(readCloudMessage(fixtureMessage('webhook-button-reply'))).toEqual({ kind: 'approval', button: { approvalId: 'appr_7Kq2', decision: 'granted' } });
    expect(readCloudMessage(fixtureMessage('webhook-template-quick-reply'))).toEqual({ kind: 'approval', button: { approvalId: 'appr_7Kq2', decision: 'denied' } });
    const hash = 'ab'.repeat(32);
    const withHash = withFields('webhook-button-reply', { interactive: { type: 'button_reply', button_reply: { id: `apr:appr_7Kq2:a:${hash}`, title: 'Approve' } } });
    expect(readCloudMessage(withHash)).toEqual({ kind: 'approval', button: { approvalId: 'appr_7Kq2', decision: 'granted', argsHash: hash } });
  });

  it('reads other buttons and list replies as their titles', () => {
    expect(readCloudMessage(fixtureMessage('webhook-list-reply'))).toEqual({ kind: 'message', text: 'Aisle seat', notes: [] });
    const other = withFields('webhook-template-quick-reply', { button: { payload: 'more-info', text: 'Tell me more' } });
    expect(readCloudMessage(other)).toEqual({ kind: 'message', text: 'Tell me more', notes: [] });
    const forged = withFields('webhook-button-reply', { interactive: { type: 'button_reply', button_reply: { id: 'apr:bad id:a', title: 'Approve' } } });
    expect(readCloudMessage(forged)).toEqual({ kind: 'message', text: 'Approve', notes: [] });
  });

  it('writes out a location and shared contacts', () => {
    expect(readCloudMessage(fixtureMessage('webhook-location'))).toEqual({
      kind: 'message', text: 'Shared a location: SFO Terminal 2, 1 Airport Blvd, San Francisco, CA 94128 (37.6213, -122.379) https://www.flysfo.com', notes: [],
    });
    expect(readCloudMessage(fixtureMessage('webhook-contacts'))).toEqual({ kind: 'message', text: 'Shared a contact: Barbara J. Johnson (+1 (650) 555-1234)', notes: [] });
  });

  it('ignores reactions, and passes unsupported messages on as a note', () => {
    expect(readCloudMessage(fixtureMessage('webhook-reaction'))).toEqual({ kind: 'ignore', reason: 'a reaction' });
    expect(readCloudMessage(fixtureMessage('webhook-unsupported'))).toEqual({
      kind: 'message', text: '', notes: ['(The person sent a kind of WhatsApp message this service cannot read: Message type is currently not supported.)'],
    });
  });
});

describe('mediumOf', () => {
  it('finds the medium of media messages only', () => {
    expect(mediumOf(fixtureMessage('webhook-image'))).toEqual({ kind: 'image', id: '1003383421387256', mimeType: 'image/jpeg', voice: false });
    expect(mediumOf(fixtureMessage('webhook-voice'))).toEqual({ kind: 'audio', id: '1228791042117614', mimeType: 'audio/ogg; codecs=opus', voice: true });
    expect(mediumOf(fixtureMessage('webhook-document'))).toMatchObject({ kind: 'document', filename: 'passport.pdf', mimeType: 'application/pdf' });
    expect(mediumOf(fixtureMessage('webhook-text'))).toBeUndefined();
  });
});
