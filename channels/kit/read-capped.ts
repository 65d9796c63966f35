/** Reading a provider's download with a size cap, without holding more than the cap in memory. */

/**
 * Reads `body` into one buffer; `undefined` as soon as it passes `maxBytes` (the rest is not read).
 *
 * @param maxBytes - The most bytes accepted.
 */
export async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
