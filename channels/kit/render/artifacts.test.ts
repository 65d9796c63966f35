import { describe, expect, it } from 'vitest';
import type { Part } from '../../../src/protocol/parts/part.ts';
import { artifactAttachment, artifactAttachments, attachmentLinks } from './artifacts.ts';
import { renderPlain } from './render-plain.ts';

const artifact = (data: Record<string, unknown>): Part => ({ data, metadata: { partType: 'artifact' } });

describe('artifacts', () => {
  it('maps an artifact part to an attachment, naming it from the URL when it has no name', () => {
    expect(artifactAttachment(artifact({ url: 'https://files.example/t/e-ticket%20SB1.pdf', mimeType: 'application/pdf', sizeBytes: 2048 }))).toEqual({
      name: 'e-ticket SB1.pdf',
      url: 'https://files.example/t/e-ticket%20SB1.pdf',
      mimeType: 'application/pdf',
      sizeBytes: 2048,
    });
    expect(artifactAttachment(artifact({ artifactId: 'a-1', name: 'Map', size: 10 }))).toEqual({ name: 'Map', artifactId: 'a-1', sizeBytes: 10 });
  });

  it('resolves ids to URLs when it can, and drops unsafe URLs', () => {
    const resolveUrl = (id: string): string => `https://files.example/${id}`;
    expect(artifactAttachment(artifact({ artifactId: 'a-2' }), { resolveUrl })).toEqual({ name: 'a-2', artifactId: 'a-2', url: 'https://files.example/a-2' });
    expect(artifactAttachment(artifact({ url: 'javascript:alert(1)' }))).toBeUndefined();
    expect(artifactAttachment({ data: { url: 'https://x.example/a' }, metadata: { partType: 'response' } })).toBeUndefined();
  });

  it('lists the attachments of the artifact parts only, in order', () => {
    const parts: Part[] = [artifact({ url: 'https://x.example/1.png' }), { text: 'hi', metadata: { partType: 'response' } }, artifact({ artifactId: 'b' })];
    expect(artifactAttachments(parts).map((attachment) => attachment.name)).toEqual(['1.png', 'b']);
  });

  it('gives name: url link lines for channels without attachments', () => {
    const links = attachmentLinks([{ name: 'Ticket', url: 'https://x.example/t.pdf' }, { name: 'Map', artifactId: 'm' }]);
    expect(renderPlain({ type: 'root', children: links })).toBe('Ticket: https://x.example/t.pdf\n\nMap (not available on this channel)');
  });
});
