/**
 * The part of whatsapp-web.js the web transport uses, as structural types: the library's `Client`
 * and `Message` satisfy them (checked in `create-web-client.test.ts`), and so does the fake in
 * `test/fakes/fake-wwebjs.ts`. Nothing here imports the library at run time.
 */
import type { MessageMedia } from 'whatsapp-web.js';

/** A serialised WhatsApp id: `447700900123@c.us` (a number), `…@g.us` (a group), `…@lid` (a hidden number). */
export interface WebId {
  readonly _serialized: string;
}

/** A media file as whatsapp-web.js hands it over (`MessageMedia`): the bytes in base64. */
export interface WebMedia {
  /** The media type, possibly with parameters (`audio/ogg; codecs=opus`). */
  readonly mimetype: string;
  /** The bytes, base64. */
  readonly data: string;
  readonly filename?: string | null | undefined;
  /** In bytes, when WhatsApp said. */
  readonly filesize?: number | null | undefined;
}

/** A chat (one-to-one or group), as far as the transport reads it. */
export interface WebChat {
  readonly id: WebId;
  readonly isGroup: boolean;
  /** The group's subject, or the contact's name. */
  readonly name: string;
  /** Messages not read yet on the linked phone. */
  readonly unreadCount: number;
  /** The chat's last `limit` messages, oldest first. */
  fetchMessages(options: { limit: number }): Promise<WebMessage[]>;
}

/** A location shared in a message. */
export interface WebLocation {
  readonly latitude: string | number;
  readonly longitude: string | number;
  readonly name?: string | undefined;
  readonly address?: string | undefined;
}

/** One message, as whatsapp-web.js's `Message` gives it. */
export interface WebMessage {
  /** `_serialized` is `false_<chat>_<id>` (or with the author in groups): unique per message. */
  readonly id: WebId & { readonly fromMe: boolean };
  /** The chat the message came from: the sender's id, or the group's id. */
  readonly from: string;
  /** In a group: who wrote it. */
  readonly author?: string | undefined;
  /** The text, or a medium's caption. */
  readonly body: string;
  readonly fromMe: boolean;
  readonly hasMedia: boolean;
  /** `chat`, `image`, `video`, `audio`, `ptt` (a voice note), `document`, `sticker`, `location`, … */
  readonly type: string;
  /** When it was sent, Unix seconds. */
  readonly timestamp: number;
  readonly hasQuotedMsg: boolean;
  /** Ids of the people mentioned with `@`. */
  readonly mentionedIds: readonly string[];
  /** A status update (`status@broadcast`). */
  readonly isStatus: boolean;
  readonly broadcast: boolean;
  readonly location?: WebLocation | undefined;
  /** WhatsApp's own record of the message; `notifyName` is the sender's profile name. */
  readonly rawData: object;
  /** The medium's bytes; `undefined` when WhatsApp no longer has them. */
  downloadMedia(): Promise<WebMedia | undefined>;
  getChat(): Promise<WebChat>;
  /** The message this one quotes, when {@link WebMessage.hasQuotedMsg}. */
  getQuotedMessage(): Promise<WebMessage | undefined>;
}

/** Options of {@link WhatsAppWebClient.sendMessage}. */
export interface WebSendOptions {
  /** The serialised id of the message to quote. */
  readonly quotedMessageId?: string;
  /** A medium's caption. */
  readonly caption?: string;
  /** Send a medium as a document rather than as an image, video or audio. */
  readonly sendMediaAsDocument?: boolean;
}

/** What the client says about the linked account once `ready`. */
export interface WebClientInfo {
  /** The account's own id; `user` is its number without `+`. */
  readonly wid: WebId & { readonly user: string };
}

/** Payloads of the client events the transport listens to. */
export interface WebClientEvents {
  /** A new QR code to scan (they rotate every ~20 s until one is scanned). */
  qr: [qr: string];
  authenticated: [];
  /** The stored session could not be restored. */
  auth_failure: [message: string];
  ready: [];
  /** `LOGOUT` when the phone removed the linked device; a WhatsApp Web state otherwise. */
  disconnected: [reason: string];
  /** A message from someone else (never the account's own). */
  message: [message: WebMessage];
}

/** A whatsapp-web.js client, as far as the transport drives it. One client per session attempt. */
export interface WhatsAppWebClient {
  /** Set once `ready`. */
  readonly info: WebClientInfo | undefined;
  on<E extends keyof WebClientEvents>(event: E, listener: (...args: WebClientEvents[E]) => void): unknown;
  /** Starts the browser and WhatsApp Web; the session's events follow. */
  initialize(): Promise<void>;
  /** Closes the browser. The client is not used again. */
  destroy(): Promise<void>;
  /**
   * Sends one message. Resolves `undefined` when WhatsApp Web does not know the chat. `content` is
   * a `MessageMedia` of the library for a file: it checks the class (see `web-media.ts`).
   */
  sendMessage(chatId: string, content: string | MessageMedia, options?: WebSendOptions): Promise<{ readonly id: WebId } | undefined>;
  /** The chat id of a number (digits, no `+`); `null` when the number is not on WhatsApp. */
  getNumberId(number: string): Promise<WebId | null>;
  getChats(): Promise<WebChat[]>;
  /** Each id's hidden-number id (`…@lid`) and phone-number id (`…@c.us`). */
  getContactLidAndPhone(ids: string[]): Promise<{ lid: string; pn: string }[]>;
}

/** Where the session is kept between runs (see `create-web-client.ts`). */
export type WebAuth =
  | {
      /** whatsapp-web.js's `LocalAuth`: in `<sessionDir>/session`. */
      readonly kind: 'local';
      /** Absolute path (`WHATSAPP_SESSION_DIR`). */
      readonly sessionDir: string;
    }
  | {
      /** whatsapp-web.js's `RemoteAuth`: a zip of the browser profile in {@link WebSessionStore}. */
      readonly kind: 'remote';
      readonly store: WebSessionStore;
      /** Local working folder of the profile and its zip (a temporary directory). */
      readonly dataPath: string;
      /** How often the session is saved again once ready, in ms; at least 60000. */
      readonly backupSyncIntervalMs: number;
    };

/** RemoteAuth's `Store`: where the zipped session of `session` (`RemoteAuth`) is kept. */
export interface WebSessionStore {
  sessionExists(options: { session: string }): Promise<boolean>;
  /** Keeps `<dataPath>/<session>.zip`, which RemoteAuth has just written. */
  save(options: { session: string }): Promise<void>;
  /** Writes the kept zip to `path`. */
  extract(options: { session: string; path: string }): Promise<void>;
  delete(options: { session: string }): Promise<void>;
}

/** The session name RemoteAuth uses without a `clientId`: its zip is `<dataPath>/RemoteAuth.zip`. */
export const REMOTE_SESSION_NAME = 'RemoteAuth';

/** What a client is made with. */
export interface WebClientOptions {
  /** The browser to drive (`CHROMIUM_PATH`): an absolute path, or a name looked up on `PATH`. */
  readonly chromiumPath: string;
  readonly auth: WebAuth;
}

/** Makes a client: `createWebClient` (the real one) in production, the fake in tests. */
export type WebClientFactory = (options: WebClientOptions) => WhatsAppWebClient;
