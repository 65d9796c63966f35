/**
 * Reads one HTTP/1.1 response from the bytes received so far, for the bench's hand-written client
 * (`http-post.ts`): a body sized by `Content-Length` or sent in chunks, and whether the server
 * keeps the connection open.
 */

/** A whole response. */
export interface ParsedResponse {
  readonly status: number;
  readonly body: string;
  /** False when the server said `Connection: close` (or spoke HTTP/1.0 without keep-alive). */
  readonly keepAlive: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');

/** Largest response head accepted, bytes. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * The response `received` holds, or `undefined` while it is incomplete. Throws on bytes that are
 * not an HTTP/1.x response (a bad status line, a bad length) and on a head over 64 KiB.
 */
export function readResponse(received: Buffer): ParsedResponse | undefined {
  const headEnd = received.indexOf(HEADER_END);
  if (headEnd < 0) {
    if (received.length > MAX_HEAD_BYTES) throw new Error('The response head is over 64 KiB.');
    return undefined;
  }
  const [statusLine = '', ...lines] = received.toString('latin1', 0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
  if (status === null) throw new Error(`Not an HTTP/1.x response: ${JSON.stringify(statusLine.slice(0, 80))}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const connection = headers.get('connection')?.toLowerCase();
  const keepAlive = status[1] === '1' ? connection !== 'close' : connection === 'keep-alive';
  const code = Number(status[2]);
  const bodyStart = headEnd + HEADER_END.length;
  const body = code === 204 || code === 304 ? Buffer.alloc(0) : readBody(received, bodyStart, headers);
  return body === undefined ? undefined : { status: code, body: body.toString('utf8'), keepAlive };
}

/** The body after `start`, or `undefined` while it is incomplete. */
function readBody(received: Buffer, start: number, headers: ReadonlyMap<string, string>): Buffer | undefined {
  if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked') === true) return readChunks(received, start);
  const length = headers.get('content-length');
  if (length === undefined) throw new Error('The response has neither a Content-Length nor chunks.');
  if (!/^\d+$/.test(length)) throw new Error(`Bad Content-Length: ${JSON.stringify(length)}`);
  const end = start + Number(length);
  return received.length < end ? undefined : received.subarray(start, end);
}

/** A chunked body from `start`, or `undefined` until its last chunk (and the empty line after it) arrived. */
function readChunks(received: Buffer, start: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = received.indexOf(LINE_END, at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(received.toString('latin1', at, lineEnd).split(';')[0] ?? '', 16);
    if (!Number.isInteger(size) || size < 0) throw new Error('Bad chunk size in the response.');
    const dataStart = lineEnd + LINE_END.length;
    if (size === 0) {
      // No trailers are expected: the body ends with an empty line.
      return received.length < dataStart + LINE_END.length ? undefined : Buffer.concat(chunks);
    }
    if (received.length < dataStart + size + LINE_END.length) return undefined;
    chunks.push(received.subarray(dataStart, dataStart + size));
    at = dataStart + size + LINE_END.length;
  }
}
