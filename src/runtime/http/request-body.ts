/**
 * Reading request bodies: capped in size and in time, and JSON only where JSON is expected.
 */
import type { IncomingMessage } from 'node:http';
import { SwitchboardError } from '../../protocol/errors.ts';

/** Default of `maxBytes` in {@link readBody}: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Default of `timeoutMs` in {@link readBody}: 20 s from the first read to the body's end, a little
 * under the server's whole-request bound (`DEFAULT_REQUEST_TIMEOUT_MS`, 30 s), so a body trickled in
 * is answered with the coded 408 of this reader.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 20_000;

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Time to receive the whole body, in ms. Default {@link DEFAULT_BODY_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/**
 * Reads a request body as a Buffer. A body over `maxBytes` (default {@link DEFAULT_MAX_BODY_BYTES})
 * is `http.bad_request`; one not complete within `options.timeoutMs` is `http.request_timeout`
 * (408); a client gone before the end is `http.bad_request`. The rest of a refused body is left
 * unread: the router closes such a connection after its answer.
 */
export function readBody(req: IncomingMessage, maxBytes = DEFAULT_MAX_BODY_BYTES, options: ReadBodyOptions = {}): Promise<Buffer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: SwitchboardError | undefined): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (error === undefined) {
        resolve(Buffer.concat(chunks));
        return;
      }
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) finish(new SwitchboardError('http.bad_request', `Request body over ${String(maxBytes)} bytes.`, { details: { maxBytes } }));
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish(undefined);
    };
    const onGone = (): void => {
      finish(new SwitchboardError('http.bad_request', 'The client closed the connection before the body ended.'));
    };
    const timer = setTimeout(() => {
      finish(new SwitchboardError('http.request_timeout', `The request body was not received within ${String(timeoutMs)} ms.`, { details: { timeoutMs } }));
    }, timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}

/**
 * Refuses a body that is not declared JSON: the `Content-Type` must be `application/json`, with at
 * most a `charset=utf-8` parameter (JSON is UTF-8, RFC 8259).
 *
 * @throws SwitchboardError `http.unsupported_media_type` (415) naming `content-type`.
 */
export function requireJsonContentType(req: IncomingMessage): void {
  const [type, ...parameters] = (req.headers['content-type'] ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charsetOk = parameters.every((parameter) => parameter === '' || /^charset="?utf-8"?$/.test(parameter));
  if (type !== 'application/json' || !charsetOk) {
    throw new SwitchboardError('http.unsupported_media_type', 'The body must be JSON, sent with "content-type: application/json" (charset utf-8, if any).', {
      details: { field: 'content-type' },
    });
  }
}

/**
 * Reads and parses a JSON object body after {@link requireJsonContentType}: another content type is
 * 415 `http.unsupported_media_type`; a malformed or non-object body is `http.bad_request`.
 */
export async function readJsonObject(req: IncomingMessage, maxBytes?: number, options?: ReadBodyOptions): Promise<Record<string, unknown>> {
  requireJsonContentType(req);
  const raw = (await readBody(req, maxBytes, options)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new SwitchboardError('http.bad_request', 'The body is not valid JSON.', { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SwitchboardError('http.bad_request', 'The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
