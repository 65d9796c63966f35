import { describe, expect, it } from 'vitest';
import { printQrCode } from './qr-terminal.ts';

describe('printQrCode', () => {
  it('draws the code in block characters with how to scan it', async () => {
    const written: string[] = [];
    await printQrCode('2@fakeQr,abc==,def==,ghi==', (text) => written.push(text));
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('Linked devices > Link a device');
    expect(written[0]).toMatch(/[▀▄█]/);
    expect(written[0]?.split('\n').length).toBeGreaterThan(10);
  });
});
