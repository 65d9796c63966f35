/**
 * A local stand-in for the WhatsApp Business Cloud API (`https://graph.facebook.com/v26.0`),
 * speaking its wire format: message sends checked like Meta checks them (including the 24-hour
 * customer-service window: free-form messages to a contact who has not written within 24 hours are
 * refused with 131047, templates go), multipart media uploads, media look-ups and downloads (on a
 * `lookaside`-style path of the fake), the phone-number read, the bearer token on every request,
 * and Meta's error JSON. Answers are the recorded payloads of `test/fixtures/whatsapp/`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type {
  FakeGraph,
  FakeGraphAttempt,
  FakeGraphFailure,
  FakeGraphOptions,
  FakeGraphRequest,
  FakeGraphSend,
  FakeGraphUpload,
} from './fake-graph-types.ts';
import { readMultipart, type FormPart } from './fake-graph-multipart.ts';
import { newWamid, readWhatsAppFixture, type JsonObject, type WhatsAppFixtureName } from './whatsapp-webhook.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const ATTACHMENTS_PATH = '/whatsapp_business/attachments/';

interface Medium {
  readonly bytes: Buffer;
  readonly mimeType: string;
}

interface FakeState {
  origin: string;
  readonly token: string;
  readonly phoneNumberId: string;
  readonly version: string;
  readonly number: JsonObject;
  readonly clock: () => Date;
  readonly sends: FakeGraphSend[];
  readonly attempts: FakeGraphAttempt[];
  readonly uploads: FakeGraphUpload[];
  readonly requests: FakeGraphRequest[];
  readonly media: Map<string, Medium>;
  /** Last time each contact (digits) wrote, epoch ms. */
  readonly windows: Map<string, number>;
  /** The next media id (Meta's are 15 to 16 digits). */
  nextMediaId: number;
  readonly failures: FakeGraphFailure[];
}

/** A read request. */
interface Incoming {
  readonly method: string;
  readonly url: URL;
  readonly contentType: string;
  readonly raw: Buffer;
  readonly authorized: boolean;
}

/** How the fake answers. */
type Reply =
  | { readonly status: number; readonly json: unknown; readonly code?: number; readonly headers?: Readonly<Record<string, string>> }
  | { readonly status: number; readonly bytes: Buffer; readonly mimeType: string };

const digits = (number: string): string => number.replace(/^\+/, '');
const record = (value: unknown): JsonObject | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined);

/** Meta's error answer: `{ error: { message, type, code, error_data, fbtrace_id } }`. */
function graphError(status: number, code: number, message: string, details?: string, headers?: Readonly<Record<string, string>>): Reply {
  const error = {
    message,
    type: 'OAuthException',
    code,
    ...(details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details } }),
    fbtrace_id: randomBytes(12).toString('base64url'),
  };
  return { status, json: { error }, code, ...(headers === undefined ? {} : { headers }) };
}

/** A recorded error answer with the status given. */
function recordedError(name: WhatsAppFixtureName, status: number, headers?: Readonly<Record<string, string>>): Reply {
  const json = readWhatsAppFixture(name);
  const code = record(json['error'])?.['code'];
  return { status, json, ...(typeof code === 'number' ? { code } : {}), ...(headers === undefined ? {} : { headers }) };
}

const invalid = (what: string): Reply => graphError(400, 100, `(#100) Invalid parameter`, what);
const notValid = (what: string): Reply => graphError(400, 131009, '(#131009) Parameter value is not valid', what);

/** Why a text, media or interactive body is refused, or `undefined`. */
function contentProblem(state: FakeState, type: string, body: JsonObject): Reply | undefined {
  const content = record(body[type]);
  if (content === undefined) return invalid(`The parameter ${type} is required.`);
  if (type === 'text') {
    const text = content['body'];
    if (typeof text !== 'string' || text === '') return invalid('The parameter text[\'body\'] is required.');
    return text.length > 4096 ? notValid('text[\'body\'] is longer than 4096 characters.') : undefined;
  }
  if (type === 'image' || type === 'document' || type === 'audio' || type === 'video' || type === 'sticker') {
    const id = content['id'];
    if (typeof id === 'string' && state.media.has(id)) return undefined;
    return typeof content['link'] === 'string' ? undefined : graphError(400, 131053, '(#131053) Media upload error', `Unknown media id ${String(id)}.`);
  }
  if (type === 'interactive') return interactiveProblem(content);
  return undefined;
}

function interactiveProblem(interactive: JsonObject): Reply | undefined {
  if (interactive['type'] !== 'button') return undefined;
  const text = record(interactive['body'])?.['text'];
  if (typeof text !== 'string' || text === '' || text.length > 1024) return notValid('interactive body text must have 1 to 1024 characters.');
  const buttons = record(interactive['action'])?.['buttons'];
  if (!Array.isArray(buttons) || buttons.length === 0 || buttons.length > 3) return notValid('interactive buttons must be 1 to 3.');
  for (const button of buttons) {
    const reply = record(record(button)?.['reply']);
    const title = reply?.['title'];
    if (typeof title !== 'string' || title === '' || title.length > 20) return notValid('Button title length invalid: at most 20 characters.');
    if (typeof reply?.['id'] !== 'string') return invalid('Button id is required.');
  }
  return undefined;
}

function templateProblem(body: JsonObject): Reply | undefined {
  const template = record(body['template']);
  if (typeof template?.['name'] !== 'string' || typeof record(template['language'])?.['code'] !== 'string') return invalid('template name and language.code are required.');
  const components = Array.isArray(template['components']) ? (template['components'] as unknown[]) : [];
  for (const component of components) {
    const parameters = record(component)?.['parameters'];
    for (const parameter of Array.isArray(parameters) ? (parameters as unknown[]) : []) {
      const text = record(parameter)?.['text'];
      if (typeof text === 'string' && (/[\n\t]/.test(text) || / {5,}/.test(text))) {
        return invalid('Param text cannot have new-line/tab characters or more than 4 consecutive spaces');
      }
    }
  }
  return undefined;
}

/** Whether a free-form message to `to` is inside the contact's 24-hour window. */
function windowOpen(state: FakeState, to: string): boolean {
  const wrote = state.windows.get(digits(to));
  return wrote !== undefined && state.clock().getTime() - wrote < DAY_MS;
}

function sendProblem(state: FakeState, body: JsonObject): Reply | undefined {
  if (body['messaging_product'] !== 'whatsapp') return invalid('The parameter messaging_product is required.');
  const to = body['to'];
  const type = body['type'];
  if (typeof to !== 'string' || !/^\+?[1-9]\d{1,14}$/.test(to)) return invalid('The parameter to is required.');
  if (typeof type !== 'string') return invalid('The parameter type is required.');
  // Meta echoes it in the message's status webhooks; a string of at most 512 characters.
  const opaque = body['biz_opaque_callback_data'];
  if (opaque !== undefined && (typeof opaque !== 'string' || opaque.length > 512)) return notValid('biz_opaque_callback_data must be a string of at most 512 characters.');
  if (type === 'template') return templateProblem(body);
  const problem = contentProblem(state, type, body);
  if (problem !== undefined) return problem;
  return windowOpen(state, to) ? undefined : recordedError('graph-error-131047', 400);
}

function scriptedFailure(failure: FakeGraphFailure): Reply {
  const code = failure.code ?? (failure.status === 429 ? 130429 : failure.status >= 500 ? 131000 : 100);
  const headers = failure.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(failure.retryAfterSeconds) };
  if (failure.message === undefined && code === 130429) return recordedError('graph-error-130429', failure.status, headers);
  if (failure.message === undefined && code === 131000) return recordedError('graph-error-131000', failure.status, headers);
  return graphError(failure.status, code, failure.message ?? `(#${code}) Scripted failure`, undefined, headers);
}

function send(state: FakeState, incoming: Incoming): Reply {
  let body: JsonObject | undefined;
  try {
    body = record(JSON.parse(incoming.raw.toString('utf8')));
  } catch {
    body = undefined;
  }
  const to = typeof body?.['to'] === 'string' ? body['to'] : undefined;
  const failure = state.failures.shift();
  const reply = failure !== undefined ? scriptedFailure(failure) : body === undefined ? invalid('The request body is not JSON.') : (sendProblem(state, body) ?? accept(state, body));
  state.attempts.push({ status: reply.status, code: 'json' in reply ? reply.code : undefined, to, at: Date.now() });
  return reply;
}

function accept(state: FakeState, body: JsonObject): Reply {
  const id = newWamid();
  const to = String(body['to']);
  state.sends.push({ id, to, type: String(body['type']), body, at: Date.now() });
  const json = readWhatsAppFixture('graph-send-ok');
  json['contacts'] = [{ input: to, wa_id: digits(to) }];
  json['messages'] = [{ id, ...(body['type'] === 'template' ? { message_status: 'accepted' } : {}) }];
  return { status: 200, json };
}

function upload(state: FakeState, incoming: Incoming): Reply {
  const parts = readMultipart(incoming.raw, incoming.contentType);
  if (parts === undefined) return invalid('Media upload must be multipart/form-data.');
  const field = (name: string): FormPart | undefined => parts.find((part) => part.name === name);
  const file = field('file');
  const typeField = field('type')?.bytes.toString('utf8');
  if (field('messaging_product')?.bytes.toString('utf8') !== 'whatsapp') return invalid('The parameter messaging_product is required.');
  if (file?.filename === undefined || typeField === undefined) return invalid('The parameters file and type are required.');
  const mimeType = file.contentType ?? typeField;
  const mediaId = String((state.nextMediaId += 1));
  state.media.set(mediaId, { bytes: file.bytes, mimeType });
  state.uploads.push({ mediaId, bytes: file.bytes, mimeType, typeField, name: file.filename });
  return { status: 200, json: { id: mediaId } };
}

function mediaInfo(state: FakeState, mediaId: string): Reply {
  const medium = state.media.get(mediaId);
  if (medium === undefined) return graphError(400, 100, `Unsupported get request. Object with ID '${mediaId}' does not exist.`, undefined);
  const json = readWhatsAppFixture('graph-media-info');
  const hash = createHash('sha256').update(medium.bytes).digest();
  json['url'] = `${state.origin}${ATTACHMENTS_PATH}?mid=${mediaId}&ext=${Math.floor(Date.now() / 1000)}&hash=${hash.toString('base64url').slice(0, 24)}`;
  json['mime_type'] = medium.mimeType;
  json['sha256'] = hash.toString('base64');
  json['file_size'] = medium.bytes.length;
  json['id'] = mediaId;
  return { status: 200, json };
}

function phoneNumber(state: FakeState, url: URL): Reply {
  const fields = (url.searchParams.get('fields') ?? 'verified_name,display_phone_number,quality_rating').split(',');
  const json: JsonObject = { id: state.phoneNumberId };
  for (const field of fields) if (field in state.number) json[field] = state.number[field];
  return { status: 200, json };
}

function route(state: FakeState, incoming: Incoming): Reply {
  if (!incoming.authorized) return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
  const { pathname } = incoming.url;
  if (incoming.method === 'GET' && pathname === ATTACHMENTS_PATH) {
    const medium = state.media.get(incoming.url.searchParams.get('mid') ?? '');
    return medium === undefined ? { status: 404, json: { error: 'not found' } } : { status: 200, bytes: medium.bytes, mimeType: medium.mimeType };
  }
  const base = `/${state.version}/`;
  if (!pathname.startsWith(base)) return graphError(400, 2500, 'Unknown path components');
  const [node = '', edge, ...rest] = pathname.slice(base.length).split('/');
  if (rest.length > 0) return graphError(400, 2500, 'Unknown path components');
  if (incoming.method === 'POST' && node === state.phoneNumberId && edge === 'messages') return send(state, incoming);
  if (incoming.method === 'POST' && node === state.phoneNumberId && edge === 'media') return upload(state, incoming);
  if (incoming.method === 'GET' && edge === undefined) return node === state.phoneNumberId ? phoneNumber(state, incoming.url) : mediaInfo(state, node);
  return graphError(400, 100, `Unsupported ${incoming.method.toLowerCase()} request. Object with ID '${node}' does not exist.`);
}

async function read(state: FakeState, req: IncomingMessage): Promise<Incoming> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', state.origin),
    contentType: req.headers['content-type'] ?? '',
    raw: Buffer.concat(chunks),
    authorized: req.headers.authorization === `Bearer ${state.token}`,
  };
}

function write(res: ServerResponse, reply: Reply): void {
  if ('bytes' in reply) {
    res.writeHead(reply.status, { 'content-type': reply.mimeType, 'content-length': reply.bytes.length });
    res.end(reply.bytes);
    return;
  }
  const payload = JSON.stringify(reply.json);
  const challenge = reply.status === 401 ? { 'www-authenticate': 'OAuth "Facebook Platform" "invalid_token" "Invalid OAuth access token"' } : {};
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=UTF-8', ...challenge, ...reply.headers });
  res.end(payload);
}

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const incoming = await read(state, req);
  const reply = route(state, incoming);
  state.requests.push({ method: incoming.method, path: `${incoming.url.pathname}${incoming.url.search}`, status: reply.status, authorized: incoming.authorized });
  write(res, reply);
}

function initialState(options: FakeGraphOptions): FakeState {
  const recorded = readWhatsAppFixture('graph-phone-number');
  return {
    origin: '',
    token: options.token,
    phoneNumberId: options.phoneNumberId ?? '106540352242922',
    version: options.version ?? 'v26.0',
    number: {
      ...recorded,
      ...(options.number?.displayPhoneNumber === undefined ? {} : { display_phone_number: options.number.displayPhoneNumber }),
      ...(options.number?.verifiedName === undefined ? {} : { verified_name: options.number.verifiedName }),
      ...(options.number?.qualityRating === undefined ? {} : { quality_rating: options.number.qualityRating }),
    },
    clock: options.clock ?? (() => new Date()),
    sends: [], attempts: [], uploads: [], requests: [], media: new Map(), windows: new Map(), failures: [], nextMediaId: 1_037_543_291_543_636,
  };
}

/**
 * Starts a fake Graph API on 127.0.0.1 and a free port. Point the channel at it with
 * `WHATSAPP_API_URL = fake.apiUrl`.
 *
 * @example
 * const graph = await startFakeGraph({ token: 'EAAG-test' });
 * graph.contactWrote('+16505551234');
 * const client = createGraphClient({ apiUrl: graph.apiUrl, token: 'EAAG-test', phoneNumberId: graph.phoneNumberId });
 * await client.sendMessage({ to: '16505551234', type: 'text', text: { body: 'hi' } });
 * expect(graph.sends()).toHaveLength(1);
 */
export async function startFakeGraph(options: FakeGraphOptions): Promise<FakeGraph> {
  const state = initialState(options);
  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else write(res, graphError(500, 1, `fake-graph crashed: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  const listening = await listenOnLoopback(server);
  state.origin = listening.origin;
  return {
    origin: state.origin,
    apiUrl: `${state.origin}/${state.version}`,
    token: state.token,
    phoneNumberId: state.phoneNumberId,
    sends: (to) => state.sends.filter((sent) => to === undefined || digits(sent.to) === digits(to)),
    attempts: () => [...state.attempts],
    uploads: () => [...state.uploads],
    requests: () => [...state.requests],
    contactWrote(waId, at = state.clock()) {
      state.windows.set(digits(waId), at.getTime());
    },
    addMedia(bytes, mimeType) {
      const mediaId = String((state.nextMediaId += 1));
      state.media.set(mediaId, { bytes: Buffer.from(bytes), mimeType });
      return mediaId;
    },
    failNext(count, failure) {
      const scripted = typeof failure === 'number' ? { status: failure } : failure;
      for (let index = 0; index < count; index += 1) state.failures.push(scripted);
    },
    reset() {
      for (const list of [state.sends, state.attempts, state.uploads, state.requests, state.failures]) list.length = 0;
      state.media.clear();
      state.windows.clear();
    },
    close: () => listening.close(),
  };
}
