/**
 * A small `multipart/form-data` reader for the fake Graph API's media upload: the parts of a body
 * with their names, file names, types and bytes. Enough for what `fetch` sends with a `FormData`
 * (no nested multiparts, no transfer encodings).
 */

/** One part of a multipart body. */
export interface FormPart {
  /** `name` of `Content-Disposition`. */
  readonly name: string;
  /** `filename` of `Content-Disposition`, for a file part. */
  readonly filename: string | undefined;
  /** The part's `Content-Type`, when given. */
  readonly contentType: string | undefined;
  readonly bytes: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

function boundaryOf(contentType: string): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function readPart(chunk: Buffer): FormPart | undefined {
  const split = chunk.indexOf(HEADER_END);
  if (split < 0) return undefined;
  const headers = chunk.subarray(0, split).toString('utf8').split('\r\n');
  const disposition = headers.find((line) => /^content-disposition:/i.test(line)) ?? '';
  const type = headers.find((line) => /^content-type:/i.test(line));
  const name = /\bname="([^"]*)"/.exec(disposition)?.[1];
  if (name === undefined) return undefined;
  return {
    name,
    filename: /\bfilename="([^"]*)"/.exec(disposition)?.[1],
    contentType: type?.slice(type.indexOf(':') + 1).trim(),
    bytes: chunk.subarray(split + HEADER_END.length),
  };
}

/**
 * The parts of `raw`, a body of type `contentType`; `undefined` when it is not multipart.
 *
 * @example
 * const parts = readMultipart(body, req.headers['content-type'] ?? '');
 * const file = parts?.find((part) => part.name === 'file');
 */
export function readMultipart(raw: Buffer, contentType: string): FormPart[] | undefined {
  const boundary = boundaryOf(contentType);
  if (!contentType.toLowerCase().startsWith('multipart/form-data') || boundary === undefined) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part sits between the CRLF after one delimiter and the CRLF before the next.
    const part = readPart(raw.subarray(start + CRLF.length, next - CRLF.length));
    if (part !== undefined) parts.push(part);
    at = next;
  }
  return parts;
}
