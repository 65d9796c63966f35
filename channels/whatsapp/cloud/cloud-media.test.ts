import { describe, expect, it } from 'vitest';
import { keptName } from './cloud-media.ts';

describe('keptName', () => {
  it('names a medium by its kind and type, a voice note as such, a document by its file name', () => {
    expect(keptName({ kind: 'image', id: 'm1', mimeType: 'image/JPEG; x=y', voice: false })).toEqual({ name: 'image.jpg', mimeType: 'image/jpeg' });
    expect(keptName({ kind: 'audio', id: 'm2', mimeType: 'audio/ogg; codecs=opus', voice: true })).toEqual({ name: 'voice-note.ogg', mimeType: 'audio/ogg' });
    expect(keptName({ kind: 'document', id: 'm3', mimeType: 'application/pdf', filename: 'ticket.pdf', voice: false })).toEqual({ name: 'ticket.pdf', mimeType: 'application/pdf' });
  });

  it('gives a type named like an inherited property no extension of its own', () => {
    // Counterexamples found by webhook-payload.properties.test.ts: "image.[object Object]" and "image.function Object() { [native code] }".
    expect(keptName({ kind: 'image', id: 'm4', mimeType: '__proto__', voice: false }).name).toBe('image.bin');
    expect(keptName({ kind: 'image', id: 'm5', mimeType: 'constructor', voice: false }).name).toBe('image.bin');
  });
});
