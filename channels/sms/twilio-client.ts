/**
 * The Twilio REST client of the SMS channel: the real SDK, its API base URL set from
 * `TWILIO_API_URL` (proxies, tests), and an HTTP client that keeps Twilio's `Retry-After` on a 429,
 * which the SDK's own error drops, so the outbound queue can honour it.
 */
import twilio from 'twilio';
import RequestClient from 'twilio/lib/base/RequestClient.js';
import type * as TwilioResponse from 'twilio/lib/http/response.js';
import type { SmsEnv } from '../../src/config/env-types.ts';

/** One message as Twilio answers its creation (the fields the channel reads). */
export interface CreatedMessage {
  readonly sid: string;
  readonly status: string;
  readonly numSegments: string;
}

/** What the channel sends to `messages.create` (the SDK's own names). */
export interface MessageParams {
  readonly to: string;
  readonly body: string;
  readonly statusCallback: string;
  readonly from?: string;
  readonly messagingServiceSid?: string;
  readonly mediaUrl?: string[];
}

/** One message as Twilio lists it (the fields the channel reads); `null` where Twilio has no value. */
export interface ListedMessage {
  readonly sid: string;
  readonly to: string;
  readonly from: string | null;
  readonly messagingServiceSid: string | null;
  readonly body: string;
  readonly numMedia: string;
  readonly numSegments: string;
  readonly status: string;
  /** `outbound-api` for what the REST API sent. */
  readonly direction: string;
  readonly dateCreated: Date;
}

/** What the channel asks of `messages.list` (the SDK's names). */
export interface ListParams {
  readonly to?: string;
  readonly from?: string;
  /** Records per page, at most 1000. */
  readonly pageSize?: number;
  /** Most records in all, across pages. */
  readonly limit?: number;
}

/**
 * The part of the SDK's REST client the channel uses. tsc checks the SDK's client against it in
 * {@link createTwilioClient}; the rest of the channel sees only this.
 */
export interface TwilioClient {
  readonly messages: { create(params: MessageParams): Promise<CreatedMessage>; list(params: ListParams): Promise<readonly ListedMessage[]> };
  readonly incomingPhoneNumbers: { list(params: { phoneNumber: string; limit: number }): Promise<readonly { readonly phoneNumber: string }[]> };
  account(accountSid: string): { fetch(): Promise<{ readonly status: string; readonly friendlyName: string }> };
}

/** The field a throttled answer's error body gets, read back by the sender. */
export const RETRY_AFTER_FIELD = 'switchboard_retry_after_seconds';

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Copies `Retry-After` of a 429 into the error body, where `RestException` keeps it (`details`). */
class RetryAfterClient extends RequestClient {
  override async request<TData>(opts: RequestClient.RequestOptions<TData>): Promise<TwilioResponse.default<TData>> {
    const response = await super.request(opts);
    const retryAfter = Number((response.headers as Record<string, unknown> | undefined)?.['retry-after']);
    if (response.statusCode !== 429 || !Number.isFinite(retryAfter)) return response;
    const raw: unknown = response.body;
    const body = typeof raw === 'string' ? parsed(raw) : raw;
    if (typeof body !== 'object' || body === null) return response;
    const fields = body as Record<string, unknown>;
    const details = typeof fields['details'] === 'object' && fields['details'] !== null ? fields['details'] : {};
    (response as { body: unknown }).body = { ...fields, details: { ...details, [RETRY_AFTER_FIELD]: retryAfter } };
    return response;
  }
}

/**
 * Creates the client for the configured account.
 *
 * @example
 * const client = createTwilioClient(env.sms);
 * await client.messages.create({ to: '+15550100', from: '+15550199', body: 'Hi' });
 */
export function createTwilioClient(sms: Pick<SmsEnv, 'accountSid' | 'authToken' | 'apiUrl'>): TwilioClient {
  /* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
     typescript-eslint cannot resolve the SDK's client class (tsc does, and checks it against TwilioClient here). */
  const client = twilio(sms.accountSid, sms.authToken, { httpClient: new RetryAfterClient({ timeout: 15_000 }) });
  client.api.baseUrl = sms.apiUrl;
  return {
    messages: client.messages,
    incomingPhoneNumbers: client.incomingPhoneNumbers,
    account: (accountSid) => client.api.v2010.accounts(accountSid),
  };
  /* eslint-enable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return */
}
