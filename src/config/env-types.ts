import type { LogLevel } from './log-levels.ts';

/**
 * Where Redis comes from: an outside server named by `REDIS_URL`, or a private `redis-server`
 * that switchboard starts itself when `REDIS_URL` is unset.
 */
export type RedisEnv =
  | {
      /** `REDIS_URL` is set: connect to that server. */
      readonly mode: 'external';
      /** The `redis://` or `rediss://` URL, as given (may hold a password: never log it). */
      readonly url: string;
    }
  | {
      /** `REDIS_URL` is unset: start a private `redis-server`. */
      readonly mode: 'embedded';
      /**
       * Absolute folder for the private server's data. Default `<defaults.appDir>/.data/redis`, or
       * `defaults.redisDataDir` when given.
       */
      readonly dataDir: string;
    };

/** The model endpoint (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`). */
export interface AnthropicEnv {
  /**
   * `ANTHROPIC_API_KEY`. Default: unset, in which case calls to the model fail with the SDK's
   * authentication error; `doctor` reports it.
   */
  readonly apiKey: string | undefined;
  /**
   * `ANTHROPIC_BASE_URL`, an http(s) URL without trailing slash. Default
   * {@link DEFAULT_ANTHROPIC_BASE_URL} (the SDK's own default). Any Anthropic-compatible server
   * works.
   */
  readonly baseUrl: string;
}

/** A mail server parsed from `IMAP_URL` or `SMTP_URL`. */
export interface MailServerEnv {
  /** Host name or IP address. */
  readonly host: string;
  /** TCP port. Default 143 (`imap:`), 993 (`imaps:`), 587 (`smtp:`), 465 (`smtps:`). */
  readonly port: number;
  /** `true` for `imaps:` / `smtps:` (TLS from the first byte); `false` for plain or STARTTLS. */
  readonly secure: boolean;
  /** Login user name, percent-decoded. Always set for IMAP; for SMTP unset when the URL has none. */
  readonly user: string | undefined;
  /** Login password, percent-decoded. A secret: never log it. */
  readonly password: string | undefined;
}

/** The IMAP server of the email channel: a {@link MailServerEnv} with a mailbox. */
export interface ImapEnv extends MailServerEnv {
  /** Login user name, percent-decoded. */
  readonly user: string;
  /** Login password, percent-decoded. */
  readonly password: string;
  /** Mailbox to watch, from the URL path, percent-decoded. Default `INBOX`. */
  readonly mailbox: string;
}

/** The email channel, on when `IMAP_URL` is set (then `SMTP_URL` is required too). */
export interface EmailEnv {
  /** Parsed `IMAP_URL`: where mail is read. */
  readonly imap: ImapEnv;
  /** Parsed `SMTP_URL`: where replies are sent. */
  readonly smtp: MailServerEnv;
  /**
   * `EMAIL_FROM`, the bot's `From:` header, e.g. `Concierge <bot@example.com>`. Default: the IMAP
   * user, which must then be an email address.
   */
  readonly from: string;
  /** The bare address inside {@link EmailEnv.from}, e.g. `bot@example.com`. */
  readonly fromAddress: string;
  /**
   * `EMAIL_TRUSTED_AUTHSERV_ID`, e.g. `mx.example.com`: sender authentication is read from the
   * topmost `Authentication-Results` header with this authserv-id (added by the operator's own
   * mail server) instead of being verified by the service itself. Default unset: DKIM and DMARC
   * are verified by the service (`mailauth`).
   */
  readonly trustedAuthservId: string | undefined;
}

/** The SMS channel, on when both `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN` are set. */
export interface SmsEnv {
  /** `TWILIO_ACCOUNT_SID`: `AC` followed by 32 hex digits. */
  readonly accountSid: string;
  /** `TWILIO_AUTH_TOKEN`. A secret; also the key of `X-Twilio-Signature` checks. */
  readonly authToken: string;
  /**
   * `TWILIO_SMS_FROM`: an E.164 number (`+15550100`) or a Messaging Service SID (`MG` + 32 hex
   * digits). Default: unset.
   */
  readonly from: string | undefined;
  /** `TWILIO_API_URL` without trailing slash. Default {@link DEFAULT_TWILIO_API_URL}. */
  readonly apiUrl: string;
}

/** The Slack channel, on when both `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET` are set. */
export interface SlackEnv {
  /** `SLACK_BOT_TOKEN`, starting `xoxb-`. A secret. */
  readonly botToken: string;
  /** `SLACK_SIGNING_SECRET`. A secret. */
  readonly signingSecret: string;
  /** `SLACK_APP_TOKEN`, starting `xapp-`: when set, events also come over Socket Mode (one connection per app). Default unset. */
  readonly appToken: string | undefined;
  /** `SLACK_API_URL`, always ending with `/`. Default {@link DEFAULT_SLACK_API_URL}. */
  readonly apiUrl: string;
}

/** WhatsApp through the Business Cloud API (`WHATSAPP_MODE=cloud`). */
export interface WhatsAppCloudEnv {
  readonly mode: 'cloud';
  /** `WHATSAPP_TOKEN`: a system-user access token with `whatsapp_business_messaging`. A secret. */
  readonly token: string;
  /** `WHATSAPP_PHONE_NUMBER_ID`: the id (digits) of the business number messages are sent from. */
  readonly phoneNumberId: string;
  /** `WHATSAPP_APP_SECRET`: the Meta app secret, key of `X-Hub-Signature-256`. A secret. */
  readonly appSecret: string;
  /** `WHATSAPP_VERIFY_TOKEN`: what Meta's `hub.verify_token` must equal when the webhook is subscribed. A secret. */
  readonly verifyToken: string;
  /** `WHATSAPP_API_URL` without trailing slash, version included. Default {@link DEFAULT_WHATSAPP_API_URL}. */
  readonly apiUrl: string;
}

/** WhatsApp through whatsapp-web.js, a linked device of a personal number (`WHATSAPP_MODE=web`). */
export interface WhatsAppWebEnv {
  readonly mode: 'web';
  /**
   * `WHATSAPP_SESSION_DIR`: absolute path of the directory the session is kept in (`LocalAuth`).
   * Default unset: the session is kept in Redis (`RemoteAuth`), so any worker can take it over.
   */
  readonly sessionDir: string | undefined;
  /** `CHROMIUM_PATH`: the browser to drive. Default `chromium`, looked up on `PATH` at start. */
  readonly chromiumPath: string;
}

/** The WhatsApp channel, on when `WHATSAPP_MODE` is set. */
export type WhatsAppEnv = WhatsAppCloudEnv | WhatsAppWebEnv;

/** Default of `WHATSAPP_API_URL`: the public Graph API at a pinned version. */
export const DEFAULT_WHATSAPP_API_URL = 'https://graph.facebook.com/v26.0';

/** Which channels are on, derived from the variables that are set. */
export interface EnabledChannels {
  /** The web chat is always on. */
  readonly web: true;
  /** On when `IMAP_URL` is set. */
  readonly email: boolean;
  /** On when `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN` are set. */
  readonly sms: boolean;
  /** On when `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET` are set. */
  readonly slack: boolean;
  /** On when `WHATSAPP_MODE` is set. */
  readonly whatsapp: boolean;
}

/**
 * One entry of `TRUST_PROXY`: an address range whose peers are believed when they send
 * `X-Forwarded-For`. A single address is a range of one (`prefixLength` 32 or 128).
 */
export interface ProxyRange {
  /** The range's first address, as written (IPv4 dotted or IPv6). */
  readonly address: string;
  /** How many leading bits must match: 0 to 32 (IPv4) or 0 to 128 (IPv6). */
  readonly prefixLength: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** The validated, typed environment of switchboard. Built once at start-up by {@link loadEnv}. */
export interface SwitchboardEnv {
  /** `PORT`: the HTTP port, an integer from 1 to 65535. Default {@link DEFAULT_PORT} (3000). */
  readonly port: number;
  /**
   * `PUBLIC_URL`: the externally visible base URL, http(s), without trailing slash, query or
   * fragment. Default `http://localhost:<port>`.
   */
  readonly publicUrl: string;
  /** `REDIS_URL`, or the private server used when it is unset. */
  readonly redis: RedisEnv;
  /**
   * `SWITCHBOARD_APP`: absolute path of the app folder (holding `actors/`, `tools/`,
   * `switchboard.yaml`). Default `defaults.appDir`, the example app in this repository.
   */
  readonly appDir: string;
  /** The model endpoint. */
  readonly anthropic: AnthropicEnv;
  /** The email channel, or `undefined` when it is off (`IMAP_URL` unset). */
  readonly email: EmailEnv | undefined;
  /** The SMS channel, or `undefined` when it is off (Twilio credentials unset). */
  readonly sms: SmsEnv | undefined;
  /** The Slack channel, or `undefined` when it is off (Slack credentials unset). */
  readonly slack: SlackEnv | undefined;
  /** The WhatsApp channel, or `undefined` when it is off (`WHATSAPP_MODE` unset). */
  readonly whatsapp: WhatsAppEnv | undefined;
  /**
   * `ADMIN_TOKEN`: bearer token for the operator pages, at least 16 characters. Default unset:
   * the operator pages answer only on loopback. A secret.
   */
  readonly adminToken: string | undefined;
  /**
   * `TRUST_PROXY`: the reverse proxies whose `X-Forwarded-For` header is believed, from a
   * comma-separated list of addresses, CIDR ranges and the word `loopback`. Default empty: no
   * proxy header is believed, and a request carrying one is not taken as a loopback client.
   */
  readonly trustProxy: readonly ProxyRange[];
  /**
   * `SESSION_SECRET`: the key that signs the web chat's `sb_session` cookie and derives its CSRF
   * tokens, at least 32 characters. Default unset: a random secret is generated once and kept in
   * Redis, shared by every process. A secret: never log it.
   */
  readonly sessionSecret: string | undefined;
  /** `LOG_LEVEL`: one of pino's levels (case-insensitive on input). Default `info`. */
  readonly logLevel: LogLevel;
  /**
   * `SWITCHBOARD_TURN_CONCURRENCY`: turns one process runs at once, an integer from 1 to 10000.
   * A turn mostly waits for the model, so this is how many conversations a worker serves at the
   * same moment, not a CPU count. Default 128.
   */
  readonly turnConcurrency: number;
  /** Which channels are on. */
  readonly channels: EnabledChannels;
  /**
   * Any variable of the environment as it was when {@link loadEnv} read it (a frozen copy taken
   * then; later changes to `process.env` are not seen): the trimmed value, or `undefined` when
   * unset, empty or blank. For variables the app folder names, such as a peer's
   * `token: env:PARTNER_TOKEN`; pass it as `loadApp`'s `environment`. Values may be secrets.
   */
  readonly lookup: (name: string) => string | undefined;
}
