/**
 * A local stand-in for a messaging provider's REST API, for the buffered test channel: `POST
 * /v1/messages` with a bearer token and a JSON `{ to, text, idempotencyKey }`, answered 201 with a
 * message id. Tests can make it answer the next requests with 429 (and `Retry-After`) or 500, and
 * read everything it accepted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message the fake accepted. */
export interface InboxMessage {
  readonly id: string;
  readonly to: string;
  readonly text: string;
  readonly idempotencyKey: string;
  /** Epoch ms when it was accepted. */
  readonly at: number;
}

/** A running fake provider. */
export interface FakeInboxProvider {
  readonly url: string;
  readonly token: string;
  /** Messages accepted, oldest first; optionally only those to `to`. */
  messages(to?: string): readonly InboxMessage[];
  /** Answers the next `count` sends with `status` (429 carries `Retry-After: retryAfterSeconds`). */
  failNext(count: number, status: 429 | 500 | 400, retryAfterSeconds?: number): void;
  /** Every request seen, accepted or not, with its status. */
  attempts(): readonly { readonly status: number; readonly at: number }[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startFakeInboxProvider(token = 'inbox-test-token'): Promise<FakeInboxProvider> {
  const accepted: InboxMessage[] = [];
  const seen: { status: number; at: number }[] = [];
  const failures: { status: number; retryAfterSeconds: number | undefined }[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const record = (status: number): void => { seen.push({ status, at: Date.now() }); };
      if (req.method !== 'POST' || req.url !== '/v1/messages') { answer(res, 404, { error: 'not_found' }); return; }
      if (req.headers.authorization !== `Bearer ${token}`) {
        record(401);
        answer(res, 401, { error: 'unauthorized' }); return;
      }
      const body = (await readJson(req)) as Partial<Record<'to' | 'text' | 'idempotencyKey', unknown>>;
      const failure = failures.shift();
      if (failure !== undefined) {
        record(failure.status);
        const headers: Record<string, string> = failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
        answer(res, failure.status, { error: failure.status === 400 ? 'invalid_recipient' : 'try_later' }, headers); return;
      }
      if (typeof body.to !== 'string' || typeof body.text !== 'string' || typeof body.idempotencyKey !== 'string') {
        record(400);
        answer(res, 400, { error: 'bad_request' }); return;
      }
      record(201);
      const message = { id: `msg_${accepted.length + 1}`, to: body.to, text: body.text, idempotencyKey: body.idempotencyKey, at: Date.now() };
      accepted.push(message);
      answer(res, 201, { id: message.id });
    })().catch(() => { answer(res, 500, { error: 'fake_failed' }); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    messages: (to) => accepted.filter((message) => to === undefined || message.to === to),
    failNext(count, status, retryAfterSeconds) {
      for (let index = 0; index < count; index += 1) failures.push({ status, retryAfterSeconds });
    },
    attempts: () => seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { resolve(); });
    }),
  };
}
