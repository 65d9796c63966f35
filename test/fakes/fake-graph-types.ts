/**
 * Types of the fake WhatsApp Cloud (Graph) API ({@link ./fake-graph.ts}).
 */

/** Options of `startFakeGraph`. */
export interface FakeGraphOptions {
  /** The access token every request must carry as `Authorization: Bearer …`. */
  readonly token: string;
  /** The business number's id (`WHATSAPP_PHONE_NUMBER_ID`). Default `106540352242922`. */
  readonly phoneNumberId?: string;
  /** The API version in paths. Default `v26.0`. */
  readonly version?: string;
  /** What `GET /{phone-number-id}` reports. Default the recorded `graph-phone-number.json`. */
  readonly number?: { readonly displayPhoneNumber?: string; readonly verifiedName?: string; readonly qualityRating?: string };
  /** The fake's clock, for the 24-hour window. Default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** A message the fake accepted (answered 200). */
export interface FakeGraphSend {
  /** The `wamid.…` it answered. */
  readonly id: string;
  /** `to` as sent. */
  readonly to: string;
  /** `type` as sent. */
  readonly type: string;
  /** The whole JSON body as sent. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Epoch ms when it was accepted. */
  readonly at: number;
}

/** One `POST …/messages` the fake answered, whatever the answer. */
export interface FakeGraphAttempt {
  readonly status: number;
  /** Meta's error code answered, if any. */
  readonly code: number | undefined;
  readonly to: string | undefined;
  readonly at: number;
}

/** A file uploaded with `POST …/media`. */
export interface FakeGraphUpload {
  readonly mediaId: string;
  readonly bytes: Buffer;
  /** The file part's type. */
  readonly mimeType: string;
  /** The `type` form field. */
  readonly typeField: string;
  /** The file part's name. */
  readonly name: string;
}

/** Any request the fake answered. */
export interface FakeGraphRequest {
  readonly method: string;
  /** Path with query. */
  readonly path: string;
  readonly status: number;
  /** Whether it carried the right bearer token. */
  readonly authorized: boolean;
}

/** A scripted failure of the next sends. */
export interface FakeGraphFailure {
  /** HTTP status. */
  readonly status: number;
  /** Meta's error code. Default: 429 → 130429, 5xx → 131000, else 100. */
  readonly code?: number;
  readonly message?: string;
  /** Sent as `Retry-After`, in seconds. Default none. */
  readonly retryAfterSeconds?: number;
}

/** A running fake Graph API. */
export interface FakeGraph {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** `WHATSAPP_API_URL`: the origin and the version, e.g. `http://127.0.0.1:40123/v26.0`. */
  readonly apiUrl: string;
  readonly token: string;
  readonly phoneNumberId: string;
  /** Accepted messages, oldest first; only those to `to` (digits or E.164) when given. */
  sends(to?: string): readonly FakeGraphSend[];
  /** Every message send, accepted or not, oldest first. */
  attempts(): readonly FakeGraphAttempt[];
  /** Every upload, oldest first. */
  uploads(): readonly FakeGraphUpload[];
  /** Every request, oldest first. */
  requests(): readonly FakeGraphRequest[];
  /**
   * Notes that the contact `waId` (digits or E.164) last wrote at `at` (default now): free-form
   * messages to them are accepted for 24 hours from then; outside it only templates are, others
   * answer 400 / 131047.
   */
  contactWrote(waId: string, at?: Date): void;
  /** Serves `bytes` as a received medium: `GET /{media-id}` and a download URL on the fake. Returns the media id. */
  addMedia(bytes: Uint8Array | string, mimeType: string): string;
  /**
   * Answers the next `count` authorised sends with a failure: `429` (code 130429), `500`
   * (code 131000), or a failure of your own.
   */
  failNext(count: number, failure: 429 | 500 | FakeGraphFailure): void;
  /** Forgets sends, attempts, uploads, requests, media, windows and scripted failures. */
  reset(): void;
  close(): Promise<void>;
}
