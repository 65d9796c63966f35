import { describe, expect, it } from 'vitest';
import { attachedLine, megabytes } from './kept-files.ts';

describe('kept files as the actor reads them', () => {
  it('names the file, its type, its size in MB and its artifact', () => {
    expect(attachedLine({ artifactId: 'AbCdEfGhIjKlMnOpQr-_12', name: 'ticket.pdf', mimeType: 'application/pdf', sizeBytes: 2_516_582 })).toBe('[attached: ticket.pdf, application/pdf, 2.4 MB, artifact AbCdEfGhIjKlMnOpQr-_12]');
    expect(megabytes(10 * 1_048_576)).toBe('10.0 MB');
  });
});
