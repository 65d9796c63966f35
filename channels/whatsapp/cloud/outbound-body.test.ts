/**
 * The Graph bodies of outbound messages, and Meta's limits refused before a send: text with a
 * quote, images and documents, reply buttons, templates with normalised parameters and quick
 * replies.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../queues/delivery-error.ts';
import { buttonsBody, mediaBody, MAX_IMAGE_BYTES, templateBody, textBody } from './outbound-body.ts';
import { cloudRecipient, templateParam } from './outbound-limits.ts';

const TO = '+447700900123';

function refusal(make: () => unknown): DeliveryError {
  try {
    make();
  } catch (error) {
    if (error instanceof DeliveryError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('cloudRecipient', () => {
  it('drops the plus of an E.164 number', () => {
    expect(cloudRecipient(TO)).toBe('447700900123');
    expect(cloudRecipient('447700900123')).toBe('447700900123');
  });

  it('refuses a group id or anything else, for good', () => {
    expect(refusal(() => cloudRecipient('120363041234567890@g.us'))).toMatchObject({ permanent: true });
    expect(refusal(() => cloudRecipient('+0123'))).toMatchObject({ permanent: true });
  });
});

describe('textBody', () => {
  it('sends text with link previews, quoting when asked', () => {
    expect(textBody({ kind: 'text', to: TO, text: 'Hello *there*', quoteId: 'wamid.Q' })).toEqual({
      to: '447700900123', type: 'text', text: { body: 'Hello *there*', preview_url: true }, context: { message_id: 'wamid.Q' },
    });
    expect(textBody({ kind: 'text', to: TO, text: 'Hi' })).not.toHaveProperty('context');
  });

  it('takes 4096 characters and refuses 4097 or none', () => {
    expect(textBody({ kind: 'text', to: TO, text: 'x'.repeat(4096) }).type).toBe('text');
    expect(refusal(() => textBody({ kind: 'text', to: TO, text: 'x'.repeat(4097) })).message).toContain('4097 characters, over 4096');
    expect(refusal(() => textBody({ kind: 'text', to: TO, text: '' })).permanent).toBe(true);
  });
});

describe('mediaBody', () => {
  it('sends a JPEG or PNG as an image with its caption', () => {
    expect(mediaBody({ to: TO, mediaId: '77', mimeType: 'image/png', sizeBytes: 1000, name: 'chart.png', caption: 'The chart' }))
      .toEqual({ to: '447700900123', type: 'image', image: { id: '77', caption: 'The chart' } });
  });

  it('sends anything else, or an image over 5 MiB, as a document with its file name', () => {
    expect(mediaBody({ to: TO, mediaId: '78', mimeType: 'application/pdf', sizeBytes: 1000, name: 'ticket.pdf' }))
      .toEqual({ to: '447700900123', type: 'document', document: { id: '78', filename: 'ticket.pdf' } });
    expect(mediaBody({ to: TO, mediaId: '79', mimeType: 'image/jpeg', sizeBytes: MAX_IMAGE_BYTES + 1, name: 'big.jpg' }).type).toBe('document');
    expect(mediaBody({ to: TO, mediaId: '80', mimeType: 'image/webp', sizeBytes: 10, name: 'x.webp' }).type).toBe('document');
  });

  it('refuses a caption over 1024 characters', () => {
    expect(refusal(() => mediaBody({ to: TO, mediaId: '1', mimeType: 'image/png', sizeBytes: 1, name: 'a.png', caption: 'c'.repeat(1025) })).permanent).toBe(true);
  });
});

describe('buttonsBody', () => {
  const buttons = [{ id: 'apr:a1:a', title: 'Approve' }, { id: 'apr:a1:d', title: 'Deny' }];

  it('sends an interactive button message with a footer', () => {
    expect(buttonsBody({ kind: 'buttons', to: TO, body: 'Book MW 304?', buttons, footer: 'Expires in 1 hour' })).toEqual({
      to: '447700900123',
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Book MW 304?' },
        footer: { text: 'Expires in 1 hour' },
        action: { buttons: [{ type: 'reply', reply: { id: 'apr:a1:a', title: 'Approve' } }, { type: 'reply', reply: { id: 'apr:a1:d', title: 'Deny' } }] },
      },
    });
  });

  it('refuses four buttons, none, a title over 20 characters, a repeated id, a body over 1024', () => {
    const four = [...buttons, { id: 'c', title: 'C' }, { id: 'd', title: 'D' }];
    expect(refusal(() => buttonsBody({ kind: 'buttons', to: TO, body: 'b', buttons: four })).message).toContain('4 reply buttons');
    expect(refusal(() => buttonsBody({ kind: 'buttons', to: TO, body: 'b', buttons: [] })).permanent).toBe(true);
    expect(refusal(() => buttonsBody({ kind: 'buttons', to: TO, body: 'b', buttons: [{ id: 'x', title: 'A title that is long!' }] })).message).toContain('21 characters, over 20');
    expect(refusal(() => buttonsBody({ kind: 'buttons', to: TO, body: 'b', buttons: [{ id: 'x', title: 'A' }, { id: 'x', title: 'B' }] })).message).toContain('share an id');
    expect(refusal(() => buttonsBody({ kind: 'buttons', to: TO, body: 'b'.repeat(1025), buttons })).permanent).toBe(true);
  });
});

describe('templateParam', () => {
  it('turns new lines and tabs into one space and cuts runs of spaces to four', () => {
    expect(templateParam('Book MW 304?\n\nReply below.')).toBe('Book MW 304? Reply below.');
    expect(templateParam('a\tb \r\n c')).toBe('a b c');
    expect(templateParam('a          b')).toBe('a    b');
    expect(templateParam('  padded  ')).toBe('padded');
  });
});

describe('templateBody', () => {
  it('sends the name, language, normalised body parameters and quick-reply payloads by index', () => {
    expect(templateBody({ kind: 'template', to: TO, name: 'approval_request', language: 'en_GB', bodyParams: ['Book MW 304\nfor £118?'], quickReplies: ['apr:a1:a', 'apr:a1:d'] })).toEqual({
      to: '447700900123',
      type: 'template',
      template: {
        name: 'approval_request',
        language: { code: 'en_GB' },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: 'Book MW 304 for £118?' }] },
          { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'apr:a1:a' }] },
          { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'apr:a1:d' }] },
        ],
      },
    });
  });

  it('sends no components for a template without parameters', () => {
    expect(templateBody({ kind: 'template', to: TO, name: 'hello_world', language: 'en_US', bodyParams: [] })).toMatchObject({ template: { components: [] } });
  });

  it('refuses a parameter that is empty after normalising or over 1024 characters', () => {
    expect(refusal(() => templateBody({ kind: 'template', to: TO, name: 'n', language: 'en', bodyParams: [' \n '] })).message).toContain('template parameter is empty');
    expect(refusal(() => templateBody({ kind: 'template', to: TO, name: 'n', language: 'en', bodyParams: ['p'.repeat(1025)] })).permanent).toBe(true);
  });
});
