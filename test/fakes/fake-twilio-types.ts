/**
 * Types of the fake Twilio REST API ({@link ./fake-twilio.ts}) and of the webhook helpers
 * ({@link ./twilio-webhook.ts}).
 */

/**
 * Form parameters as Twilio sends and signs them: one value per name, or several for a repeated
 * name (`MediaUrl=a&MediaUrl=b`). This is also the shape `twilio.getExpectedTwilioSignature` and
 * `twilio.validateRequest` take.
 */
export type TwilioParams = Readonly<Record<string, string | readonly string[]>>;

/** The values of a message resource's `status`, and of `MessageStatus` in status callbacks. */
export type TwilioMessageStatus =
  | 'queued'
  | 'accepted'
  | 'scheduled'
  | 'sending'
  | 'sent'
  | 'delivered'
  | 'undelivered'
  | 'failed'
  | 'read'
  | 'partially_delivered'
  | 'canceled'
  | 'receiving'
  | 'received';

/** A phone number the fake account owns, with the details `IncomingPhoneNumbers.json` reports. */
export interface FakeTwilioNumber {
  /** E.164, e.g. `+15005550006`. */
  readonly phoneNumber: string;
  /** Default: the number formatted as `(500) 555-0006` for +1 numbers, else the number itself. */
  readonly friendlyName?: string;
  /** The number's inbound SMS webhook (`sms_url`). Default `''` (none configured). */
  readonly smsUrl?: string;
}

/** Options of `startFakeTwilio`. */
export interface FakeTwilioOptions {
  /** `AC` + 32 hex digits; the HTTP Basic user name every request must carry. */
  readonly accountSid: string;
  /** The HTTP Basic password every request must carry; also the key status callbacks are signed with. */
  readonly authToken: string;
  /** Numbers the account owns (E.164 strings or details). Default `['+15005550006']`. */
  readonly numbers?: readonly (string | FakeTwilioNumber)[];
  /** The account's `friendly_name`. Default: the one in `test/fixtures/twilio/account.json`. */
  readonly friendlyName?: string;
  /** The account's `status`. Default `active`. */
  readonly accountStatus?: 'active' | 'suspended' | 'closed';
}

/** A message the fake accepted (answered 201). A snapshot: later status changes are not reflected. */
export interface FakeTwilioMessage {
  /** `SM` + 32 hex digits. */
  readonly sid: string;
  readonly to: string;
  /** `From` as sent; `undefined` when only a Messaging Service was given. */
  readonly from: string | undefined;
  readonly messagingServiceSid: string | undefined;
  /** `Body` as sent; `''` when there was none (media only). */
  readonly body: string;
  /** Every `MediaUrl`, in order. */
  readonly mediaUrls: readonly string[];
  readonly statusCallback: string | undefined;
  /** What the fake computed for `num_segments` (GSM-7: 160 / 153, UCS-2: 70 / 67). */
  readonly numSegments: number;
  /** Current status: `queued` (`accepted` for a Messaging Service send), then what `deliverStatus` set. */
  readonly status: TwilioMessageStatus;
  /** The error code of the last `failed` / `undelivered` status delivered, else `undefined`. */
  readonly errorCode: number | undefined;
  /** Every form parameter exactly as received (repeated names as arrays). */
  readonly params: TwilioParams;
  /** The raw `application/x-www-form-urlencoded` body. */
  readonly rawBody: string;
  /**
   * The `I-Twilio-Idempotency-Token` request header, if the caller sent one. twilio-node's
   * `messages.create` never does: Twilio only sends this header *to* your webhooks.
   */
  readonly idempotencyToken: string | undefined;
  /** Request headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Epoch ms when it was accepted. */
  readonly at: number;
}

/** One `POST …/Messages.json` the fake answered, whatever the answer. */
export interface FakeTwilioAttempt {
  /** HTTP status answered; `0` when the connection was dropped (`failNext(n, 'disconnect')`). */
  readonly status: number;
  /** Twilio error code answered, if any. */
  readonly code: number | undefined;
  /** `To` of the request, if it had one. */
  readonly to: string | undefined;
  /** The message sid, for attempts that created a message (including `acceptFirst` failures). */
  readonly sid: string | undefined;
  /** Epoch ms when it was received (recorded before any scripted delay). */
  readonly at: number;
}

/** Any request the fake answered. */
export interface FakeTwilioRequest {
  readonly method: string;
  /** Path with query, e.g. `/2010-04-01/Accounts/AC…/IncomingPhoneNumbers.json?PhoneNumber=%2B1…`. */
  readonly path: string;
  /** HTTP status answered (`0` for a dropped connection). */
  readonly status: number;
  /** Epoch ms when it was received. */
  readonly at: number;
}

/** How a scripted failure answers. */
export interface FakeTwilioFailureOptions {
  /** Twilio error code. Default: 400 → 21211, 401 → 20003, any other status → 20000 + status. */
  readonly code?: number;
  /** Error message. Default: Twilio's wording for the code, when the fake knows it. */
  readonly message?: string;
  /** Sent as the `Retry-After` header, in seconds. Default: no header. */
  readonly retryAfterSeconds?: number;
  /** Wait this long before answering, in ms (to test client timeouts). Default 0. */
  readonly delayMs?: number;
  /**
   * Accept the message first (it is in `messages()`, and `deliverStatus` works on it), then answer
   * with the failure: a lost response, after which a retry sends the text twice. Only when the send
   * is otherwise valid. Default `false`.
   */
  readonly acceptFirst?: boolean;
}

/** Options of `FakeTwilio.deliverStatus`. */
export interface FakeStatusDeliveryOptions {
  /** `ErrorCode` of a `failed` / `undelivered` status. Default 30003 (undelivered), 30008 (failed). */
  readonly errorCode?: number;
  /** Where to POST. Default: the message's `StatusCallback`. */
  readonly url?: string;
  /**
   * The URL the `X-Twilio-Signature` covers. Default: the message's `StatusCallback`, as Twilio
   * signs the URL it was given (even when `url` sends the request elsewhere, e.g. past a proxy).
   */
  readonly signedUrl?: string;
  /** Replaces the computed signature; `null` sends no `X-Twilio-Signature` header. */
  readonly signature?: string | null;
  /** `I-Twilio-Idempotency-Token` header; default a fresh UUID; `null` sends none. */
  readonly idempotencyToken?: string | null;
}

/** Options of `FakeTwilio.deliverStatuses`. */
export interface FakeStatusDeliveriesOptions extends FakeStatusDeliveryOptions {
  /**
   * `in-order` (default) posts one after the other as given, `reversed` posts them last first (as
   * Twilio may: callbacks are not ordered), `concurrent` posts them all at once.
   */
  readonly order?: 'in-order' | 'reversed' | 'concurrent';
}

/** Options of `FakeTwilio.addMedia`. */
export interface FakeMediaOptions {
  /** The message the media belongs to (goes in the URL). Default: a fresh `MM` sid. */
  readonly messageSid?: string;
  /**
   * Answer the authenticated GET with a 307 to an unauthenticated `/cdn/…` URL on the fake, as
   * Twilio redirects media fetches to its CDN. Default `false`: the bytes are served directly.
   */
  readonly redirect?: boolean;
}

/** What a webhook POST was answered with. */
export interface TwilioWebhookResponse {
  readonly status: number;
  readonly body: string;
  /** The `Content-Type` header, or `null`. */
  readonly contentType: string | null;
}

/** A running fake Twilio REST API. */
export interface FakeTwilio {
  /** Base URL, in place of `https://api.twilio.com`, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  readonly accountSid: string;
  readonly authToken: string;
  /** The numbers the account owns (E.164). */
  readonly numbers: readonly string[];
  /** Accepted messages, oldest first; only those to `to` when given. */
  messages(to?: string): readonly FakeTwilioMessage[];
  /** Every `POST …/Messages.json`, accepted or not, oldest first. */
  attempts(): readonly FakeTwilioAttempt[];
  /** Every request, oldest first. */
  requests(): readonly FakeTwilioRequest[];
  /**
   * Answers the next `count` authenticated message sends with `status` and Twilio's error JSON
   * (e.g. 429 / 20429 with `Retry-After`, 500 / 20500, 400 / 21211, 400 / 21610), or drops the
   * connection for `'disconnect'`. Requests with wrong credentials do not use up a failure. With
   * `acceptFirst` the message is created before the failure answers (a lost response).
   */
  failNext(count: number, status: number | 'disconnect', options?: FakeTwilioFailureOptions): void;
  /** Marks `number` as having replied STOP (sends to it answer 400 / 21610), or clears the mark. */
  optedOut(number: string, optedOut?: boolean): void;
  /**
   * POSTs a signed status callback for a message the fake accepted, as Twilio does, and records the
   * status on the message. Throws when the message is unknown or has no `StatusCallback` and no `url`.
   */
  deliverStatus(messageSid: string, status: TwilioMessageStatus, options?: FakeStatusDeliveryOptions): Promise<TwilioWebhookResponse>;
  /** {@link FakeTwilio.deliverStatus} for several statuses, in the order chosen. Answers in the order given. */
  deliverStatuses(
    messageSid: string,
    statuses: readonly TwilioMessageStatus[],
    options?: FakeStatusDeliveriesOptions,
  ): Promise<TwilioWebhookResponse[]>;
  /**
   * Serves `bytes` at a Twilio-style media URL
   * (`{url}/2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}/Media/{MediaSid}`), which needs
   * the account's HTTP Basic credentials. Returns the URL, for `MediaUrl0` of an inbound MMS.
   */
  addMedia(bytes: Uint8Array | string, contentType: string, options?: FakeMediaOptions): string;
  /**
   * The next `count` accepted message sends (those whose form parameters `match`, when given)
   * create their message (listed, in `messages()`) but their answers are held until
   * {@link FakeTwilio.releaseHeld}: a client that dies meanwhile never hears of them.
   */
  holdNext(count: number, match?: (params: TwilioParams) => boolean): void;
  /** How many answers are held now. */
  heldCount(): number;
  /** Sends every held answer (to a client that may be gone). */
  releaseHeld(): void;
  /** Forgets messages, attempts, requests, scripted failures, opt-outs, media and pending holds. */
  reset(): void;
  /** Stops the server, dropping open connections. */
  close(): Promise<void>;
}
