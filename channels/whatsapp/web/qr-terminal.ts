/** The QR code of a session waiting to be linked, drawn in the worker's terminal. */
import { toString as qrToString } from 'qrcode';

/**
 * Writes the QR code of `qr` (the text whatsapp-web.js emits) as block characters, with a line
 * saying how to scan it.
 *
 * @param write - Where the drawing goes. Default standard output.
 */
export async function printQrCode(qr: string, write: (text: string) => void = (text) => { process.stdout.write(text); }): Promise<void> {
  const drawing = await qrToString(qr, { type: 'terminal', small: true });
  write(`WhatsApp Web: on the phone open WhatsApp > Settings > Linked devices > Link a device, and scan this code (also on /admin/whatsapp):\n${drawing}\n`);
}
