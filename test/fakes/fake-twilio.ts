/**
 * A local stand-in for Twilio's REST API (`https://api.twilio.com/2010-04-01`) that the real
 * `twilio` SDK can talk to: message sends, message fetches and lists, media, the account and its
 * numbers, HTTP Basic authentication, Twilio's error JSON, signed status callbacks, and answers held
 * back after a message was created (`holdNext`). Responses are the recorded payloads of
 * `test/fixtures/twilio/` with values filled in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import twilioSdk from 'twilio';
import type { ClientOpts } from 'twilio/lib/base/BaseTwilio.js';
import type DomainModule from 'twilio/lib/base/Domain.js';
import type RestExceptionModule from 'twilio/lib/base/RestException.js';
import type V2010Module from 'twilio/lib/rest/api/V2010.js';
import Twilio from 'twilio/lib/rest/Twilio.js';
import type {
  FakeMediaOptions,
  FakeStatusDeliveriesOptions,
  FakeStatusDeliveryOptions,
  FakeTwilio,
  FakeTwilioAttempt,
  FakeTwilioFailureOptions,
  FakeTwilioMessage,
  FakeTwilioNumber,
  FakeTwilioOptions,
  FakeTwilioRequest,
  TwilioMessageStatus,
  TwilioParams,
  TwilioWebhookResponse,
} from './fake-twilio-types.ts';
import {
  defaultStatusErrorCode,
  parseTwilioForm,
  postTwilioWebhook,
  readTwilioFixture,
  smsSegments,
  statusCallbackParams,
  twilioSid,
  type TwilioFixtureName,
} from './twilio-webhook.ts';
import { readFakeRequest, startFakeServer, type FakeRequest } from '../support/fake-http.ts';
import { listMessages, twilioPage } from './fake-twilio-list.ts';

const API = '/2010-04-01';
const E164 = /^\+[1-9]\d{1,14}$/;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A message as the fake keeps it: its status changes with `deliverStatus`. */
interface StoredMessage extends Mutable<FakeTwilioMessage> {
  readonly dateCreated: Date;
  dateUpdated: Date;
  dateSent: Date | undefined;
}

interface ScriptedFailure {
  readonly status: number | 'disconnect';
  readonly options: FakeTwilioFailureOptions;
}

interface StoredMedia {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly redirect: boolean;
  readonly cdnToken: string;
}

interface OwnedNumber {
  readonly phoneNumber: string;
  readonly friendlyName: string;
  readonly smsUrl: string;
}

/** Everything one fake knows. */
interface FakeState {
  url: string;
  readonly accountSid: string;
  readonly authToken: string;
  readonly friendlyName: string | undefined;
  readonly accountStatus: 'active' | 'suspended' | 'closed';
  readonly numbers: readonly OwnedNumber[];
  readonly messages: StoredMessage[];
  readonly attempts: FakeTwilioAttempt[];
  readonly requests: FakeTwilioRequest[];
  readonly failures: ScriptedFailure[];
  readonly optedOut: Set<string>;
  /** Keyed by `{MessageSid}/{MediaSid}`. */
  readonly media: Map<string, StoredMedia>;
  /** Message creations whose answers are still to be held: see `FakeTwilio.holdNext`. */
  readonly holds: ((params: TwilioParams) => boolean)[];
  /** Answers held back, in the order the requests came. */
  readonly held: (() => void)[];
}

/** What every answer may carry: `code` and `sid` are recorded in attempts. */
interface ReplyMeta {
  readonly code?: number;
  readonly sid?: string;
  readonly delayMs?: number;
}

/** A JSON answer. */
interface JsonReply extends ReplyMeta {
  readonly kind: 'json';
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How the fake answers. */
type Reply =
  | JsonReply
  | (ReplyMeta & { readonly kind: 'bytes'; readonly status: number; readonly body: Buffer; readonly contentType: string })
  | (ReplyMeta & { readonly kind: 'redirect'; readonly status: 307; readonly location: string })
  | (ReplyMeta & { readonly kind: 'disconnect'; readonly status: 0 });

type Handler = (state: FakeState, request: FakeRequest, match: RegExpExecArray) => Reply;

const ACCOUNT_PATH = `^${API}/Accounts/([^/]+)`;
const MESSAGES_PATH = new RegExp(`${ACCOUNT_PATH}/Messages\\.json$`);

/**
 * Starts a fake Twilio REST API on 127.0.0.1 and a free port. Point the real SDK at it with
 * {@link twilioClientFor}.
 *
 * Routes (all but `/cdn/…` need HTTP Basic `AccountSid:AuthToken`, else 401 / 20003):
 * - `POST /2010-04-01/Accounts/{sid}/Messages.json`: validates like Twilio (21604 no `To`, 21211
 *   `To` not E.164, 21603 no `From` / `MessagingServiceSid`, 21606 `From` not owned, 21602 no
 *   `Body` / `MediaUrl` / `ContentSid`, 21617 body over 1600 characters, 21610 opted-out `To`),
 *   then answers 201 with the message resource.
 * - `GET …/Messages.json[?To=…&From=…&DateSent>=…&PageSize=…&Page=…]`: the accepted messages,
 *   newest first (`fake-twilio-list.ts`).
 * - `GET …/Messages/{MessageSid}.json`: the message resource with its current status.
 * - `GET …/Messages/{MessageSid}/Media/{MediaSid}`: bytes registered with `addMedia`.
 * - `GET /2010-04-01/Accounts/{sid}.json`: the account resource.
 * - `GET …/IncomingPhoneNumbers.json[?PhoneNumber=…&PageSize=…&Page=…]`: the owned numbers.
 *
 * @example
 * const fake = await startFakeTwilio({ accountSid: 'AC…', authToken: 'secret' });
 * const client = twilioClientFor(fake);
 * await client.messages.create({ to: '+15558675310', from: '+15005550006', body: 'hi' });
 * expect(fake.messages()).toHaveLength(1);
 * await fake.close();
 */
export async function startFakeTwilio(options: FakeTwilioOptions): Promise<FakeTwilio> {
  const state = initialState(options);
  const { listening } = await startFakeServer(
    (req, res) => handle(state, req, res),
    (res, message) => { send(res, errorReply(500, 20500, `fake-twilio crashed: ${message}`)); },
  );
  state.url = listening.origin;
  return {
    url: state.url,
    accountSid: state.accountSid,
    authToken: state.authToken,
    numbers: state.numbers.map((number) => number.phoneNumber),
    messages: (to) => state.messages.filter((message) => to === undefined || message.to === to).map(snapshot),
    attempts: () => [...state.attempts],
    requests: () => [...state.requests],
    failNext(count, status, failure = {}) {
      for (let index = 0; index < count; index += 1) state.failures.push({ status, options: failure });
    },
    optedOut(number, optedOut = true) {
      if (optedOut) state.optedOut.add(number);
      else state.optedOut.delete(number);
    },
    deliverStatus: (messageSid, status, delivery = {}) => deliverStatus(state, messageSid, status, delivery),
    deliverStatuses: (messageSid, statuses, delivery = {}) => deliverStatuses(state, messageSid, statuses, delivery),
    addMedia: (bytes, contentType, media = {}) => addMedia(state, bytes, contentType, media),
    holdNext(count, match = () => true) {
      for (let index = 0; index < count; index += 1) state.holds.push(match);
    },
    heldCount: () => state.held.length,
    releaseHeld() {
      for (const release of state.held.splice(0)) release();
    },
    reset: () => {
      resetState(state);
    },
    close: () => {
      for (const release of state.held.splice(0)) release();
      return listening.close();
    },
  };
}

/**
 * `twilio.RestException`, the class of every error answer's rejection (`status`, `code`, `message`,
 * `moreInfo`, `details`), typed. Taken from the top-level export because a direct ESM import of
 * `twilio/lib/base/RestException.js` is `{ default: RestException }` under Node but the class itself
 * under vitest's interop.
 */
export const TwilioRestException = Reflect.get(twilioSdk as object, 'RestException') as typeof RestExceptionModule.default;

/**
 * `client.api`, the `https://api.twilio.com` domain of a twilio-node client, with its types.
 *
 * twilio's bundled `.d.ts` files default-import `export =` modules, which needs
 * `allowSyntheticDefaultImports`; without it (this repo's tsconfig) `client.api` is an unresolved
 * type, as is the top-level `import twilio from 'twilio'`. This names the parts that do resolve.
 */
export type TwilioApiDomain = DomainModule.default & { readonly v2010: V2010Module.default };

/** {@link TwilioApiDomain} of `client`: `baseUrl`, `v2010.account`, `v2010.accounts` … */
export function twilioApi(client: Twilio): TwilioApiDomain {
  return (client as unknown as { readonly api: TwilioApiDomain }).api;
}

/**
 * A real twilio-node client whose `api.twilio.com` domain is the fake. Exactly what production does
 * with `TWILIO_API_URL`:
 *
 * ```ts
 * const client = twilio(accountSid, authToken, options); // = new Twilio(accountSid, authToken, options)
 * client.api.baseUrl = apiUrl;                            // Domain.baseUrl, a public field
 * ```
 *
 * Everything under `client.api` (`client.messages`, `client.incomingPhoneNumbers`,
 * `client.api.v2010.account` …) then goes to the fake; other domains (`messaging.twilio.com`,
 * `lookups.twilio.com` …) are untouched.
 *
 * Throws when an edge or region is set (`TWILIO_EDGE` / `TWILIO_REGION` or the options): the SDK
 * rewrites every request's host name with them (`127.0.0.1` would become `127.au1.0.1`).
 */
export function twilioClientFor(fake: Pick<FakeTwilio, 'url' | 'accountSid' | 'authToken'>, options: ClientOpts = {}): Twilio {
  const client = new Twilio(fake.accountSid, fake.authToken, options);
  if (client.edge !== undefined || client.region !== undefined) {
    throw new Error('twilioClientFor: unset TWILIO_EDGE / TWILIO_REGION; the SDK rewrites the base URL host with them');
  }
  twilioApi(client).baseUrl = fake.url;
  return client;
}

function initialState(options: FakeTwilioOptions): FakeState {
  return {
    url: '',
    accountSid: options.accountSid,
    authToken: options.authToken,
    friendlyName: options.friendlyName,
    accountStatus: options.accountStatus ?? 'active',
    numbers: (options.numbers ?? ['+15005550006']).map(ownedNumber),
    messages: [],
    attempts: [],
    requests: [],
    failures: [],
    optedOut: new Set(),
    media: new Map(),
    holds: [],
    held: [],
  };
}

function resetState(state: FakeState): void {
  state.messages.length = 0;
  state.attempts.length = 0;
  state.requests.length = 0;
  state.failures.length = 0;
  state.optedOut.clear();
  state.media.clear();
  state.holds.length = 0;
}

function ownedNumber(number: string | FakeTwilioNumber): OwnedNumber {
  const details = typeof number === 'string' ? { phoneNumber: number } : number;
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(details.phoneNumber);
  const formatted = nanp === null ? details.phoneNumber : `(${nanp[1] ?? ''}) ${nanp[2] ?? ''}-${nanp[3] ?? ''}`;
  return { phoneNumber: details.phoneNumber, friendlyName: details.friendlyName ?? formatted, smsUrl: details.smsUrl ?? '' };
}

function snapshot(message: StoredMessage): FakeTwilioMessage {
  const { dateCreated: _created, dateUpdated: _updated, dateSent: _sent, ...rest } = message;
  return { ...rest };
}

// ---------------------------------------------------------------------------------------------
// Request handling

const ROUTES: readonly { readonly method: string; readonly pattern: RegExp; readonly auth: boolean; readonly handle: Handler }[] = [
  { method: 'POST', pattern: MESSAGES_PATH, auth: true, handle: createMessage },
  { method: 'GET', pattern: MESSAGES_PATH, auth: true, handle: (state, request) => ({ kind: 'json', status: 200, body: listMessages({ messages: state.messages, resource: (message) => messageResource(state, message), accountPath: accountPath(state) }, request.query) }) },
  { method: 'GET', pattern: new RegExp(`${ACCOUNT_PATH}/Messages/([^/]+)\\.json$`), auth: true, handle: fetchMessage },
  { method: 'GET', pattern: new RegExp(`${ACCOUNT_PATH}/Messages/([^/]+)/Media/([^/.]+)$`), auth: true, handle: fetchMedia },
  { method: 'GET', pattern: new RegExp(`${ACCOUNT_PATH}\\.json$`), auth: true, handle: fetchAccount },
  { method: 'GET', pattern: new RegExp(`${ACCOUNT_PATH}/IncomingPhoneNumbers\\.json$`), auth: true, handle: listNumbers },
  { method: 'GET', pattern: /^\/cdn\/([0-9a-f]+)$/, auth: false, handle: fetchCdn },
];

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const request = await readFakeRequest(req);
  const reply = dispatch(state, request);
  record(state, request, reply);
  if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs);
  const created = reply.status === 201 && request.method === 'POST' && MESSAGES_PATH.test(request.pathname);
  const hold = created ? state.holds.findIndex((match) => match(parseTwilioForm(request.raw))) : -1;
  if (hold < 0) {
    send(res, reply);
    return;
  }
  // The message is created; its answer waits (a client killed meanwhile never learns of it).
  state.holds.splice(hold, 1);
  state.held.push(() => { send(res, reply); });
}

function dispatch(state: FakeState, request: FakeRequest): Reply {
  for (const route of ROUTES) {
    if (route.method !== request.method) continue;
    const match = route.pattern.exec(request.pathname);
    if (match === null) continue;
    if (route.auth) {
      const refusal = checkAccess(state, request, match[1]);
      if (refusal !== undefined) return refusal;
    }
    return route.handle(state, request, match);
  }
  return notFound(request);
}

/** 401 without the account's Basic credentials; 404 for another account's resources. */
function checkAccess(state: FakeState, request: FakeRequest, accountSid: string | undefined): Reply | undefined {
  const header = request.headers['authorization'] ?? '';
  const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8') : '';
  if (decoded !== `${state.accountSid}:${state.authToken}`) {
    return { ...errorReply(401, 20003), headers: { 'www-authenticate': 'Basic realm="Twilio API"' } };
  }
  return accountSid === state.accountSid ? undefined : notFound(request);
}

function record(state: FakeState, request: FakeRequest, reply: Reply): void {
  const at = Date.now();
  state.requests.push({ method: request.method, path: request.path, status: reply.status, at });
  if (request.method !== 'POST' || !MESSAGES_PATH.test(request.pathname)) return;
  const to = single(parseTwilioForm(request.raw), 'To');
  state.attempts.push({ status: reply.status, code: reply.code, to, sid: reply.sid, at });
}

function send(res: ServerResponse, reply: Reply): void {
  res.setHeader('twilio-request-id', twilioSid('RQ'));
  switch (reply.kind) {
    case 'disconnect':
      res.socket?.destroy();
      return;
    case 'redirect':
      res.writeHead(reply.status, { location: reply.location });
      res.end();
      return;
    case 'bytes':
      res.writeHead(reply.status, { 'content-type': reply.contentType, 'content-length': String(reply.body.length) });
      res.end(reply.body);
      return;
    case 'json':
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(JSON.stringify(reply.body));
  }
}

// ---------------------------------------------------------------------------------------------
// Wire shapes

/** Twilio's wording for the error codes the fake answers with. */
const ERROR_MESSAGES = new Map<number, string>([
  [20003, 'Authenticate'],
  [20404, 'The requested resource was not found'],
  [20429, fixtureMessage('error-20429')],
  [20500, 'An internal server error has occurred'],
  [20503, 'Service is unavailable. Please try again'],
  [21211, "The 'To' number is not a valid phone number."],
  [21602, 'Message body is required.'],
  [21603, "A 'From' phone number is required."],
  [21604, "A 'To' phone number is required."],
  [21606, "The 'From' phone number provided is not a valid message-capable Twilio phone number for this destination."],
  [21610, fixtureMessage('error-21610')],
  [21617, 'The concatenated message body exceeds the 1600 character limit.'],
]);

function fixtureMessage(name: TwilioFixtureName): string {
  const message = readTwilioFixture(name)['message'];
  if (typeof message !== 'string') throw new Error(`${name}.json has no message`);
  return message;
}

/**
 * A recorded payload with some values replaced. Throws when a value names a field the recording
 * does not have, so the fake's answers keep exactly the recorded shape.
 */
function fillTemplate(name: TwilioFixtureName, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const template = readTwilioFixture(name);
  const unknown = Object.keys(values).filter((key) => !(key in template));
  if (unknown.length > 0) throw new Error(`${name}.json has no ${unknown.join(', ')}`);
  return { ...template, ...values };
}

/** Twilio's error JSON: `{ code, message, more_info, status }`. */
function errorReply(status: number, code: number, message?: string): JsonReply {
  const body = fillTemplate('error-21610', {
    code,
    message: message ?? ERROR_MESSAGES.get(code) ?? `fake-twilio: scripted error ${code}`,
    more_info: `https://www.twilio.com/docs/errors/${code}`,
    status,
  });
  return { kind: 'json', status, body, code };
}

function notFound(request: FakeRequest): Reply {
  return errorReply(404, 20404, `The requested resource ${request.pathname} was not found`);
}

function failureReply(failure: ScriptedFailure): Reply {
  const { status, options } = failure;
  const delay = options.delayMs === undefined ? {} : { delayMs: options.delayMs };
  if (status === 'disconnect') return { kind: 'disconnect', status: 0, ...delay };
  const code = options.code ?? (status === 400 ? 21211 : status === 401 ? 20003 : 20000 + status);
  const reply = errorReply(status, code, options.message);
  const headers = options.retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(options.retryAfterSeconds) } };
  return { ...reply, ...headers, ...delay };
}

/** RFC 2822 as Twilio writes it: `Tue, 03 Mar 2026 14:05:09 +0000`. */
function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

function accountPath(state: FakeState): string {
  return `${API}/Accounts/${state.accountSid}`;
}

function messageResource(state: FakeState, message: StoredMessage): Record<string, unknown> {
  const path = `${accountPath(state)}/Messages/${message.sid}`;
  return fillTemplate('message-create-201', {
    account_sid: state.accountSid,
    api_version: '2010-04-01',
    body: message.body,
    date_created: rfc2822(message.dateCreated),
    date_sent: message.dateSent === undefined ? null : rfc2822(message.dateSent),
    date_updated: rfc2822(message.dateUpdated),
    direction: 'outbound-api',
    error_code: message.errorCode ?? null,
    error_message: null,
    from: message.from ?? null,
    messaging_service_sid: message.messagingServiceSid ?? null,
    num_media: String(message.mediaUrls.length),
    num_segments: String(message.numSegments),
    price: null,
    price_unit: 'USD',
    sid: message.sid,
    status: message.status,
    subresource_uris: { media: `${path}/Media.json` },
    to: message.to,
    uri: `${path}.json`,
  });
}

/** Replaces `from` by `to` in every string of a JSON value. */
function replaceDeep(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.replaceAll(from, to);
  if (Array.isArray(value)) return value.map((item) => replaceDeep(item, from, to));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceDeep(item, from, to)]));
  }
  return value;
}

function accountResource(state: FakeState): Record<string, unknown> {
  const recorded = readTwilioFixture('account');
  const recordedSid = String(recorded['sid']);
  const filled = fillTemplate('account', {
    auth_token: state.authToken,
    status: state.accountStatus,
    type: 'Full',
    ...(state.friendlyName === undefined ? {} : { friendly_name: state.friendlyName }),
  });
  return replaceDeep(filled, recordedSid, state.accountSid) as Record<string, unknown>;
}

/** A stable `PN` sid per number. */
function numberSid(phoneNumber: string): string {
  return `PN${createHash('md5').update(phoneNumber).digest('hex')}`;
}

function numberResource(state: FakeState, number: OwnedNumber): Record<string, unknown> {
  const path = `${accountPath(state)}/IncomingPhoneNumbers/${numberSid(number.phoneNumber)}`;
  return {
    account_sid: state.accountSid,
    address_requirements: 'none',
    address_sid: null,
    api_version: '2010-04-01',
    beta: false,
    bundle_sid: null,
    capabilities: { fax: false, mms: true, sms: true, voice: true },
    date_created: 'Wed, 07 Jan 2026 09:20:11 +0000',
    date_updated: 'Wed, 07 Jan 2026 09:20:11 +0000',
    emergency_address_sid: null,
    emergency_address_status: 'unregistered',
    emergency_status: 'Active',
    friendly_name: number.friendlyName,
    identity_sid: null,
    origin: 'twilio',
    phone_number: number.phoneNumber,
    sid: numberSid(number.phoneNumber),
    sms_application_sid: '',
    sms_fallback_method: 'POST',
    sms_fallback_url: '',
    sms_method: 'POST',
    sms_url: number.smsUrl,
    status: 'in-use',
    status_callback: '',
    status_callback_method: 'POST',
    subresource_uris: { assigned_add_ons: `${path}/AssignedAddOns.json` },
    trunk_sid: null,
    uri: `${path}.json`,
    voice_application_sid: '',
    voice_caller_id_lookup: false,
    voice_fallback_method: 'POST',
    voice_fallback_url: '',
    voice_method: 'POST',
    voice_receive_mode: 'voice',
    voice_url: '',
  };
}

// ---------------------------------------------------------------------------------------------
// Routes

function single(params: TwilioParams, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' || value === undefined ? value : value[0];
}

function all(params: TwilioParams, name: string): string[] {
  const value = params[name];
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : [...value];
}

/** Twilio's checks of a send, in the order Twilio reports them. */
function refuseSend(state: FakeState, params: TwilioParams): Reply | undefined {
  const rawTo = single(params, 'To') ?? '';
  const rawFrom = single(params, 'From');
  // WhatsApp sends: both addresses carry the `whatsapp:` prefix, the numbers checked as for SMS.
  const whatsapp = rawTo.startsWith('whatsapp:');
  if (whatsapp && rawFrom !== undefined && !rawFrom.startsWith('whatsapp:')) return errorReply(400, 21910, `Invalid From and To pair. From and To should be of the same channel.`);
  const to = whatsapp ? rawTo.slice('whatsapp:'.length) : rawTo;
  const from = whatsapp && rawFrom !== undefined ? rawFrom.slice('whatsapp:'.length) : rawFrom;
  const body = single(params, 'Body') ?? '';
  if (to === '') return errorReply(400, 21604);
  if (!E164.test(to)) return errorReply(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
  if (from === undefined && single(params, 'MessagingServiceSid') === undefined) return errorReply(400, 21603);
  if (from !== undefined && !state.numbers.some((number) => number.phoneNumber === from)) {
    return errorReply(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
  }
  if (body === '' && all(params, 'MediaUrl').length === 0 && single(params, 'ContentSid') === undefined) return errorReply(400, 21602);
  if (Array.from(body).length > 1600) return errorReply(400, 21617);
  if (state.optedOut.has(to)) return errorReply(400, 21610);
  return undefined;
}

function initialStatus(params: TwilioParams): TwilioMessageStatus {
  if (single(params, 'ScheduleType') === 'fixed') return 'scheduled';
  return single(params, 'From') === undefined ? 'accepted' : 'queued';
}

function storeMessage(state: FakeState, request: FakeRequest, params: TwilioParams): StoredMessage {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const body = single(params, 'Body') ?? '';
  const message: StoredMessage = {
    sid: twilioSid('SM'),
    to: single(params, 'To') ?? '',
    from: single(params, 'From'),
    messagingServiceSid: single(params, 'MessagingServiceSid'),
    body,
    mediaUrls: all(params, 'MediaUrl'),
    statusCallback: single(params, 'StatusCallback'),
    numSegments: smsSegments(body),
    status: initialStatus(params),
    errorCode: undefined,
    params,
    rawBody: request.raw,
    idempotencyToken: request.headers['i-twilio-idempotency-token'],
    headers: request.headers,
    at: Date.now(),
    dateCreated: now,
    dateUpdated: now,
    dateSent: undefined,
  };
  state.messages.push(message);
  return message;
}

function createMessage(state: FakeState, request: FakeRequest): Reply {
  const failure = state.failures.shift();
  if (failure !== undefined && failure.options.acceptFirst !== true) return failureReply(failure);
  const params = parseTwilioForm(request.raw);
  const refusal = refuseSend(state, params);
  if (refusal !== undefined) return refusal;
  const message = storeMessage(state, request, params);
  if (failure !== undefined) return { ...failureReply(failure), sid: message.sid };
  return { kind: 'json', status: 201, body: messageResource(state, message), sid: message.sid };
}

function fetchMessage(state: FakeState, request: FakeRequest, match: RegExpExecArray): Reply {
  const message = state.messages.find((candidate) => candidate.sid === match[2]);
  return message === undefined ? notFound(request) : { kind: 'json', status: 200, body: messageResource(state, message) };
}

function fetchMedia(state: FakeState, request: FakeRequest, match: RegExpExecArray): Reply {
  const media = state.media.get(`${match[2] ?? ''}/${match[3] ?? ''}`);
  if (media === undefined) return notFound(request);
  if (media.redirect) return { kind: 'redirect', status: 307, location: `${state.url}/cdn/${media.cdnToken}` };
  return { kind: 'bytes', status: 200, body: media.bytes, contentType: media.contentType };
}

function fetchCdn(state: FakeState, request: FakeRequest, match: RegExpExecArray): Reply {
  const media = [...state.media.values()].find((candidate) => candidate.cdnToken === match[1]);
  return media === undefined ? notFound(request) : { kind: 'bytes', status: 200, body: media.bytes, contentType: media.contentType };
}

function fetchAccount(state: FakeState): Reply {
  return { kind: 'json', status: 200, body: accountResource(state) };
}

/** `PhoneNumber` matches anywhere in the number; `*` stands for any digit, as in Twilio's filter. */
function matchesNumber(phoneNumber: string, filter: string | null): boolean {
  if (filter === null || filter === '') return true;
  const pattern = filter
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\d');
  return new RegExp(pattern).test(phoneNumber);
}

function listNumbers(state: FakeState, request: FakeRequest): Reply {
  const filter = request.query.get('PhoneNumber');
  const pageSize = Math.min(Math.max(Number(request.query.get('PageSize') ?? '50') || 50, 1), 1000);
  const page = Math.max(Number(request.query.get('Page') ?? '0') || 0, 0);
  const matching = state.numbers.filter((number) => matchesNumber(number.phoneNumber, filter));
  const start = page * pageSize;
  const records = matching.slice(start, start + pageSize).map((number) => numberResource(state, number));
  const pageUri = (index: number): string => {
    const query = new URLSearchParams(filter === null ? {} : { PhoneNumber: filter });
    query.set('PageSize', String(pageSize));
    query.set('Page', String(index));
    return `${accountPath(state)}/IncomingPhoneNumbers.json?${query.toString()}`;
  };
  const body = twilioPage({ listKey: 'incoming_phone_numbers', records, total: matching.length, page, pageSize, pageUri });
  return { kind: 'json', status: 200, body };
}

// ---------------------------------------------------------------------------------------------
// Status callbacks and media

function findMessage(state: FakeState, messageSid: string): StoredMessage {
  const message = state.messages.find((candidate) => candidate.sid === messageSid);
  if (message === undefined) throw new Error(`fake-twilio: no message ${messageSid}`);
  return message;
}

function applyStatus(message: StoredMessage, status: TwilioMessageStatus, errorCode: number | undefined): void {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  message.status = status;
  message.dateUpdated = now;
  if (status === 'sent' || status === 'delivered') message.dateSent ??= now;
  message.errorCode = status === 'failed' || status === 'undelivered' ? errorCode : undefined;
}

async function deliverStatus(
  state: FakeState,
  messageSid: string,
  status: TwilioMessageStatus,
  options: FakeStatusDeliveryOptions,
): Promise<TwilioWebhookResponse> {
  const message = findMessage(state, messageSid);
  const url = options.url ?? message.statusCallback;
  if (url === undefined) throw new Error(`fake-twilio: message ${messageSid} has no StatusCallback; pass options.url`);
  const errorCode = options.errorCode ?? defaultStatusErrorCode(status);
  applyStatus(message, status, errorCode);
  const from = message.from ?? state.numbers[0]?.phoneNumber ?? '';
  const params = statusCallbackParams(
    { sid: message.sid, accountSid: state.accountSid, from, to: message.to, messagingServiceSid: message.messagingServiceSid },
    status,
    errorCode,
  );
  return postTwilioWebhook({
    url,
    signedUrl: options.signedUrl ?? message.statusCallback ?? url,
    authToken: state.authToken,
    params,
    headers: { idempotencyToken: options.idempotencyToken },
    signature: options.signature,
  });
}

async function deliverStatuses(
  state: FakeState,
  messageSid: string,
  statuses: readonly TwilioMessageStatus[],
  options: FakeStatusDeliveriesOptions,
): Promise<TwilioWebhookResponse[]> {
  const { order = 'in-order', ...delivery } = options;
  if (order === 'concurrent') return Promise.all(statuses.map((status) => deliverStatus(state, messageSid, status, delivery)));
  const indexes = statuses.map((_status, index) => index);
  if (order === 'reversed') indexes.reverse();
  const answers = new Map<number, TwilioWebhookResponse>();
  for (const index of indexes) {
    const status = statuses[index];
    if (status !== undefined) answers.set(index, await deliverStatus(state, messageSid, status, delivery));
  }
  return indexes.toSorted((a, b) => a - b).flatMap((index) => answers.get(index) ?? []);
}

function addMedia(state: FakeState, bytes: Uint8Array | string, contentType: string, options: FakeMediaOptions): string {
  const messageSid = options.messageSid ?? twilioSid('MM');
  const mediaSid = twilioSid('ME');
  state.media.set(`${messageSid}/${mediaSid}`, {
    bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes),
    contentType,
    redirect: options.redirect ?? false,
    cdnToken: randomBytes(16).toString('hex'),
  });
  return `${state.url}${accountPath(state)}/Messages/${messageSid}/Media/${mediaSid}`;
}
