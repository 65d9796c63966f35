import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MessageCreateParams } from '@anthropic-ai/sdk/resources/messages';
import { DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL } from '../../src/config/models.ts';
import { buildMessage, errorBody, formatSse, streamEvents } from './anthropic-wire.ts';
import type {
  FakeAnthropic,
  FakeAnthropicOptions,
  FakeMessageRequest,
  FakeReply,
  FakeRequest,
  FakeScript,
  FakeSseEvent,
} from './fake-anthropic-types.ts';

/**
 * Starts a local server on 127.0.0.1 (a free port) that speaks the Anthropic Messages API wire
 * format closely enough for the real `@anthropic-ai/sdk` client: `POST /v1/messages` (JSON, or
 * Server-Sent Events with `stream: true`) and `GET /v1/models`. Replies come from a script or a
 * queue; every request is recorded.
 *
 * Requests without `anthropic-version`, without `x-api-key` / `authorization`, or without `model`,
 * `max_tokens` and `messages` are refused as the real API refuses them (401 / 400).
 *
 * @example
 * const fake = await startFakeAnthropic({ replies: [{ content: [{ type: 'text', text: 'hi' }] }] });
 * const client = new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
 * ...
 * await fake.close();
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const requests: FakeRequest[] = [];
  const messageRequests: FakeMessageRequest[] = [];
  const problems: string[] = [];
  const models = options.models ?? [DEFAULT_ACTOR_MODEL, DEFAULT_TRANSLATOR_MODEL];
  let queue: FakeReply[] = [];
  let script: FakeScript | undefined;
  let callIndex = 0;
  let requestCount = 0;
  if (typeof options.replies === 'function') script = options.replies;
  else if (options.replies !== undefined) queue = [...options.replies];

  const nextReply = async (request: FakeMessageRequest): Promise<FakeReply | string> => {
    if (script !== undefined) {
      try {
        return await script(request, request.callIndex);
      } catch (error) {
        return `the script threw on call #${request.callIndex}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    return queue.shift() ?? `no reply scripted for call #${request.callIndex} (queue empty)`;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requestCount += 1;
    const requestId = `req_fake_${String(requestCount).padStart(4, '0')}`;
    res.setHeader('request-id', requestId);
    const raw = await readBody(req);
    const headers = flattenHeaders(req);
    const path = req.url ?? '/';
    const body = parseJson(raw);
    const pathname = path.split('?')[0];

    if (req.method === 'GET' && pathname === '/v1/models') {
      requests.push({ method: 'GET', path, headers, body: undefined });
      sendJson(res, 200, modelList(models));
      return;
    }
    if (req.method !== 'POST' || pathname !== '/v1/messages') {
      requests.push({ method: req.method ?? '', path, headers, body });
      sendJson(res, 404, errorBody('not_found_error', `fake-anthropic: no route for ${req.method ?? ''} ${pathname ?? ''}`, requestId));
      return;
    }
    const refusal = checkMessagesRequest(headers, body);
    if (refusal !== undefined) {
      requests.push({ method: 'POST', path, headers, body });
      sendJson(res, refusal.status, errorBody(refusal.type, refusal.message, requestId));
      return;
    }
    const request: FakeMessageRequest = { method: 'POST', path, headers, body: body as MessageCreateParams, callIndex };
    callIndex += 1;
    requests.push(request);
    messageRequests.push(request);

    const reply = await nextReply(request);
    if (typeof reply === 'string') {
      problems.push(reply);
      sendJson(res, 400, errorBody('invalid_request_error', `fake-anthropic: ${reply}`, requestId));
      return;
    }
    if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs);
    await answer(res, reply, request, requestId);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      problems.push(`fake-anthropic crashed: ${String(error)}`);
      if (!res.headersSent) sendJson(res, 500, errorBody('api_error', 'fake-anthropic crashed', 'req_fake_crash'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messageRequests,
    problems,
    enqueue(...replies) {
      script = undefined;
      queue.push(...replies);
    },
    respondWith(next) {
      script = next;
      queue = [];
    },
    reset() {
      requests.length = 0;
      messageRequests.length = 0;
      problems.length = 0;
      queue = [];
      script = undefined;
      callIndex = 0;
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeAllConnections();
      });
    },
  };
}

/** Sends one scripted reply for a messages request. */
async function answer(res: ServerResponse, reply: FakeReply, request: FakeMessageRequest, requestId: string): Promise<void> {
  const streaming = request.body.stream === true;
  if ('disconnect' in reply) {
    res.socket?.destroy();
    return;
  }
  // Left open: the client's abort or the fake's close() drops the connection.
  if ('hang' in reply) return;
  if ('error' in reply) {
    const { status, type, message, retryAfterSeconds, shouldRetry, midStream } = reply.error;
    const body = errorBody(type, message, reply.error.requestId ?? requestId);
    res.setHeader('request-id', body.request_id);
    if (streaming && midStream === true) {
      const start = streamEvents(buildMessage({ content: [] }, request.body, request.callIndex))[0];
      const events: FakeSseEvent[] = start === undefined ? [] : [start];
      await sendSse(res, [...events, { event: 'error', data: body }], 0);
      return;
    }
    if (retryAfterSeconds !== undefined) res.setHeader('retry-after', String(retryAfterSeconds));
    if (shouldRetry !== undefined) res.setHeader('x-should-retry', String(shouldRetry));
    sendJson(res, status, body);
    return;
  }
  if ('recordedEvents' in reply) {
    if (!streaming) {
      sendJson(res, 400, errorBody('invalid_request_error', 'fake-anthropic: a recorded stream needs a streaming request', requestId));
      return;
    }
    await sendSse(res, reply.recordedEvents, 0);
    return;
  }
  const message = 'recorded' in reply ? reply.recorded : buildMessage(reply, request.body, request.callIndex);
  if (!streaming) {
    sendJson(res, 200, message);
    return;
  }
  if ('recorded' in reply) {
    await sendSse(res, streamEvents(message), 0);
    return;
  }
  const cut = reply.cutAfterEvents;
  const events = streamEvents(message);
  await sendSse(res, cut === undefined ? events : events.slice(0, cut), reply.eventDelayMs ?? 0, { cut: cut !== undefined });
}

/** Checks what the real API checks first; returns the refusal to send, if any. */
function checkMessagesRequest(
  headers: Readonly<Record<string, string>>,
  body: unknown,
): { status: number; type: string; message: string } | undefined {
  if (headers['x-api-key'] === undefined && headers['authorization'] === undefined) {
    return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  }
  if (headers['anthropic-version'] === undefined) {
    return { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' };
  }
  if (typeof body !== 'object' || body === null) {
    return { status: 400, type: 'invalid_request_error', message: 'the request body is not a JSON object' };
  }
  const fields = body as Record<string, unknown>;
  for (const [field, ok] of [
    ['model', typeof fields['model'] === 'string'],
    ['max_tokens', typeof fields['max_tokens'] === 'number'],
    ['messages', Array.isArray(fields['messages'])],
  ] as const) {
    if (!ok) return { status: 400, type: 'invalid_request_error', message: `${field}: Field required` };
  }
  return undefined;
}

function modelList(models: readonly string[]): object {
  const data = models.map((id) => ({
    type: 'model',
    id,
    display_name: id,
    created_at: '2026-01-01T00:00:00Z',
    capabilities: null,
    deprecated_at: null,
    lifecycle: 'active',
    line: null,
    max_input_tokens: null,
    max_tokens: null,
    retires_at: null,
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Sends SSE events; with `cut`, destroys the socket after the last one instead of ending the response. */
async function sendSse(res: ServerResponse, events: readonly FakeSseEvent[], eventDelayMs: number, options: { readonly cut?: boolean } = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    if (res.destroyed) return;
    res.write(formatSse(event));
    if (eventDelayMs > 0) await sleep(eventDelayMs);
  }
  if (options.cut !== true) {
    res.end();
    return;
  }
  // Let the written events reach the client before the connection drops.
  await new Promise<void>((resolve) => {
    res.write('', () => {
      resolve();
    });
  });
  res.socket?.destroy();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
