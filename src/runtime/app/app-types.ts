/**
 * The shapes of a loaded app folder: what `switchboard.yaml` declares (channels, people,
 * approvals, schedules) and what {@link LoadedApp} hands to the runtime.
 */
import type { SurfaceTemplate } from '../../protocol/envelope/a2ui.ts';
import type { ActorConfig, ActorLimits, MidTurnMode } from '../actor/actor-config.ts';

/** The channels an app can route and a person can be reached on. */
export const CHANNEL_NAMES = ['web', 'email', 'sms', 'slack', 'whatsapp'] as const;

/** One of {@link CHANNEL_NAMES}. */
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/**
 * The channels `switchboard.yaml` `channels:` may route to an actor: {@link CHANNEL_NAMES} and
 * `a2a` (peers calling this agent). `a2a` has no person addresses, so it is not a {@link ChannelName}.
 */
export const ROUTABLE_CHANNELS = [...CHANNEL_NAMES, 'a2a'] as const;

/** One of {@link ROUTABLE_CHANNELS}. */
export type RoutableChannel = (typeof ROUTABLE_CHANNELS)[number];

/** Default of {@link PeerConfig.timeoutSeconds}: a call to a peer gives up after five minutes. */
export const DEFAULT_PEER_TIMEOUT_SECONDS = 300;

/** Fewest characters of a peer's bearer token (the value of its `token: env:NAME` variable). */
export const MIN_PEER_TOKEN_CHARS = 16;

/** Default of {@link ApprovalConfig.expiresInMinutes}: a pending approval lapses after one day. */
export const DEFAULT_APPROVAL_EXPIRY_MINUTES = 1440;

/** Prefix of an approver entry that names a role instead of a person (`role:travel-admin`). */
export const ROLE_APPROVER_PREFIX = 'role:';

/** Which actor answers a channel. */
export interface ChannelRoute {
  /** The actor that takes a new message on this channel. */
  readonly actor: string;
  /**
   * What happens to a message that arrives mid-turn on this channel. Absent: the actor's own
   * `midTurn` applies.
   */
  readonly midTurn?: MidTurnMode;
  /**
   * SMS only: the most segments one answer may use, all its parts together (1 to 30). Default 10;
   * a longer answer is cut with a note.
   */
  readonly maxSegments?: number;
  /**
   * WhatsApp only: which group messages start a turn: `mentions` (the bot is mentioned, or the
   * message replies to the bot), `all`, or `off`. Default `mentions`.
   */
  readonly groups?: 'mentions' | 'all' | 'off';
  /**
   * WhatsApp Cloud API only: the approved message templates sent when a contact's 24-hour
   * customer-service window is closed. `approval`: body `{{1}}` (the request) and two quick-reply
   * buttons (Approve, Deny). `notice`: body `{{1}}` (the message). Default none: such sends fail
   * with a clear error instead of free text that Meta would reject.
   */
  readonly templates?: { readonly approval?: WhatsAppTemplate; readonly notice?: WhatsAppTemplate };
  /**
   * Provider channels only (SMS, Slack, WhatsApp, email): how fast the service sends, for an
   * account whose provider allows more (or less) than the channel's defaults. Absent: the
   * channel's own limits, modelled on its provider's documented ones.
   */
  readonly sendLimits?: SendLimits;
}

/** A sending rate: at most `max` sends in any `perSeconds` seconds. */
export interface SendRate {
  readonly max: number;
  readonly perSeconds: number;
}

/** `channels.<id>.sendLimits` of `switchboard.yaml`. */
export interface SendLimits {
  /** Per destination (an SMS number, a Slack channel, a WhatsApp contact). */
  readonly perConversation?: SendRate;
  /** The whole channel (a sender number, a workspace, a phone number id), across every worker. */
  readonly perChannel?: SendRate;
  /**
   * Per provider method, for the workspace or account (Slack: `chat.postMessage`, `chat.update`,
   * `chat.postEphemeral`); only methods the channel limits may be named.
   */
  readonly perMethod?: Readonly<Record<string, SendRate>>;
  /** Queued sends in flight at once per worker process (order per destination is kept). */
  readonly concurrency?: number;
}

/** An approved WhatsApp message template, by name and language code (`en`, `en_US`). */
export interface WhatsAppTemplate {
  readonly name: string;
  readonly language: string;
}

/**
 * Who may start a conversation on a channel (`channels.<id>.senders`): `open` (anyone),
 * `allowlist` (known people, the `allow` entries and senders an operator approved) or `pairing`
 * (as `allowlist`, and an unknown sender gets a one-time code an operator approves).
 */
export const SENDER_MODES = ['open', 'allowlist', 'pairing'] as const;

/** One of {@link SENDER_MODES}. */
export type SenderMode = (typeof SENDER_MODES)[number];

/** Whether a sender an allowlist leaves out is told so: once per sender per day, or never. */
export const REFUSAL_MODES = ['daily', 'never'] as const;

/** One of {@link REFUSAL_MODES}. */
export type RefusalMode = (typeof REFUSAL_MODES)[number];

/** A channel's sender policy, checked, before the channel's default mode is applied. */
export interface SendersConfig {
  /** The mode `switchboard.yaml` sets; absent: the channel's default (`src/runtime/senders/sender-policy.ts`). */
  readonly mode?: SenderMode;
  /**
   * Addresses let in besides known people: exact ones or `*` patterns (`+44*`, `*@example.com`,
   * `T0123:*`). Email entries lower-cased. Default `[]`.
   */
  readonly allow: readonly string[];
  /**
   * `allowlist` only: whether a sender left out gets one polite refusal a day. Absent: the
   * channel's default (`daily`; `never` for WhatsApp on a linked personal number).
   */
  readonly refusal?: RefusalMode;
}

/** A known person and the addresses that identify them on each channel. */
export interface Person {
  /** Stable id, referenced by approvals (`^[a-z0-9][a-z0-9._-]*$`). */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  /**
   * Addresses per channel; every channel is present (empty when none). Email addresses are
   * lower-cased; SMS and WhatsApp numbers are E.164 (`+447700900123`).
   */
  readonly addresses: Readonly<Record<ChannelName, readonly string[]>>;
  /** Roles for `role:<name>` approvers. Default `[]`. */
  readonly roles: readonly string[];
}

/** Who may approve calls of one tool that require approval. */
export interface ApprovalConfig {
  /** A registered tool name. */
  readonly tool: string;
  /** Person ids and `role:<name>` entries. May be empty when {@link allowRequester} is `true`. */
  readonly approvers: readonly string[];
  /** Whether the person whose request led to the call may approve it. Default `false`. */
  readonly allowRequester: boolean;
  /** Minutes until a pending approval expires. Default {@link DEFAULT_APPROVAL_EXPIRY_MINUTES}. */
  readonly expiresInMinutes: number;
}

/**
 * The channels a schedule's `to` may name as `<channel>:<address>`, in the default order a person
 * is reached in: {@link CHANNEL_NAMES} and `whatsapp` (whose addresses are E.164 numbers).
 */
export const RECIPIENT_CHANNELS = ['sms', 'whatsapp', 'email', 'slack', 'web'] as const;

/** One of {@link RECIPIENT_CHANNELS}. */
export type RecipientChannel = (typeof RECIPIENT_CHANNELS)[number];

/** Default of {@link ScheduleConfig.timezone}. */
export const DEFAULT_SCHEDULE_TIMEZONE = 'UTC';

/**
 * Who a schedule (or a notification) goes to: a known person, reached on a channel chosen when it
 * fires, or an explicit channel address. For `web` the address is a conversation id.
 */
export type Recipient =
  | { readonly personId: string }
  | { readonly channel: string; readonly address: string };

/** A proactive message: at each tick of `cron`, `actor` gets `prompt` and its answer goes to `to`. */
export interface ScheduleConfig {
  /** Stable id (`^[a-z0-9][a-z0-9._-]*$`), unique among the schedules. */
  readonly id: string;
  /** A cron pattern of 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. */
  readonly cron: string;
  /** The actor that runs the tick's turn. */
  readonly actor: string;
  /** What the actor is asked at each tick, as if the recipient's conversation had received it. */
  readonly prompt: string;
  /** Where the answer goes. */
  readonly to: Recipient;
  /** IANA time zone `cron` is read in. Default {@link DEFAULT_SCHEDULE_TIMEZONE}. */
  readonly timezone: string;
  /** Whether the schedule fires. Default `true`. */
  readonly enabled: boolean;
}

/**
 * Another agent that may call ours (presenting {@link token} as a bearer token) and that ours may
 * call (at {@link url}, presenting the same token).
 */
export interface PeerConfig {
  /**
   * Stable id (`^[a-z0-9][a-z0-9_-]{0,59}$`), unique among the peers. It identifies the peer in
   * tasks, conversation keys and logs, and names its tool {@link toolName}.
   */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  /** `ask_<id>` with every `-` replaced by `_`: the tool an actor lists to call this peer (only when {@link url} is set). */
  readonly toolName: string;
  /**
   * The bearer token, read from the variable {@link tokenVariable} when the service started: at
   * least {@link MIN_PEER_TOKEN_CHARS} characters. A secret: never log it.
   */
  readonly token: string;
  /** The environment variable `token: env:NAME` names. */
  readonly tokenVariable: string;
  /**
   * The peer's base URL: absolute http(s), no query, fragment or credentials, no trailing `/`. Its
   * Agent Card is at `<url>/.well-known/agent-card.json`. Absent: the peer may call us, we cannot call it.
   */
  readonly url?: string;
  /**
   * The envelope part types the peer consumes, overriding its Agent Card's Beach extension.
   * Absent: read from the card.
   */
  readonly consumes?: readonly string[];
  /** The actor that answers this peer's messages. Default: the `a2a` channel's actor. */
  readonly actor: string;
  /** How long a call to this peer may take, in seconds. Default {@link DEFAULT_PEER_TIMEOUT_SECONDS}. */
  readonly timeoutSeconds: number;
}

/**
 * Spending limits of one budget scope (a sender, a conversation, the deployment), per UTC calendar
 * day and month. An absent field is no limit. Tokens are every token of a model call: input,
 * output, cache reads and cache writes.
 */
export interface BudgetLimits {
  /** Model tokens per UTC day. */
  readonly tokensPerDay?: number;
  /** Model tokens per UTC month. */
  readonly tokensPerMonth?: number;
  /** Model calls per UTC day. */
  readonly callsPerDay?: number;
  /** Model calls per UTC month. */
  readonly callsPerMonth?: number;
}

/** A {@link BudgetLimits} field as `switchboard.yaml` writes it: a whole number, or `unlimited`. */
export type BudgetLimitsFile = { readonly [Key in keyof BudgetLimits]?: number | 'unlimited' };

/**
 * What the model may cost, from `switchboard.yaml`'s `budgets:` with defaults filled (see
 * `resolve-budgets.ts`). A sender is known when the channel matched them to a person, or when they
 * are a peer agent or a schedule of the app; anyone else is unknown.
 */
export interface BudgetsConfig {
  /** Each unknown sender. Default 200 000 tokens and 100 model calls per day. */
  readonly unknownSenders: BudgetLimits;
  /** Each known sender. Default none. */
  readonly knownSenders: BudgetLimits;
  /** Known people with limits of their own, by person id; a field left out is {@link knownSenders}'. */
  readonly people: Readonly<Record<string, BudgetLimits>>;
  /** Each conversation (session). Default none. */
  readonly conversations: BudgetLimits;
  /** The whole deployment, every conversation together. Default none. */
  readonly deployment: BudgetLimits;
  /** Turns one sender may start per minute, whatever the channel. Default 10; absent: no limit. */
  readonly turnsPerMinute?: number;
}

/** An actor file as written (`actors/<name>.yaml`), after schema validation. */
export interface ActorFile {
  readonly name: string;
  readonly model?: string;
  readonly system: string;
  readonly tools?: readonly string[];
  readonly midTurn?: MidTurnMode;
  readonly limits?: Partial<ActorLimits>;
}

/** `switchboard.yaml` as written, after schema validation (no defaults filled). */
export interface SwitchboardConfig {
  /** The app's name. */
  readonly app: string;
  /** The actor that answers when nothing more specific applies. */
  readonly entryActor: string;
  /** Routes as written: `actor` may be left out (the entry actor answers); `senders` is checked by `resolve-senders.ts`. */
  readonly channels?: Readonly<Partial<Record<RoutableChannel, Omit<ChannelRoute, 'actor'> & { readonly actor?: string; readonly senders?: unknown }>>>;
  readonly people?: readonly {
    readonly id: string;
    readonly name: string;
    readonly addresses: Readonly<Partial<Record<ChannelName, readonly string[]>>>;
    readonly roles?: readonly string[];
  }[];
  readonly approvals?: readonly {
    readonly tool: string;
    readonly approvers: readonly string[];
    readonly allowRequester?: boolean;
    readonly expiresInMinutes?: number;
  }[];
  readonly schedules?: readonly {
    readonly id: string;
    readonly cron: string;
    readonly actor: string;
    readonly prompt: string;
    /** A person id, or `<channel>:<address>` (`sms:+15550100`, `web:<conversation id>`). */
    readonly to: string;
    readonly timezone?: string;
    readonly enabled?: boolean;
  }[];
  /** Models the app sets beside its actors' own. */
  readonly models?: {
    /** Writes `llm-context` for peers that read it. Default `DEFAULT_TRANSLATOR_MODEL` (`claude-haiku-5-5`). */
    readonly llmContext?: string;
  };
  /** What the model may cost, per sender, conversation and deployment; see {@link BudgetsConfig}. */
  readonly budgets?: {
    readonly unknownSenders?: BudgetLimitsFile;
    readonly knownSenders?: BudgetLimitsFile;
    readonly people?: Readonly<Record<string, BudgetLimitsFile>>;
    readonly conversations?: BudgetLimitsFile;
    readonly deployment?: BudgetLimitsFile;
    readonly turnsPerMinute?: number | 'unlimited';
  };
  /** What the inspector keeps; see {@link InspectFile}. */
  readonly inspect?: InspectFile;
  readonly peers?: readonly {
    readonly id: string;
    readonly name: string;
    /** `env:NAME`: the environment variable holding the bearer token. */
    readonly token: string;
    readonly url?: string;
    readonly consumes?: readonly string[];
    readonly actor?: string;
    readonly timeoutSeconds?: number;
  }[];
}

/**
 * `inspect:` of `switchboard.yaml`: what the inspector keeps beside the event log (see
 * docs/operations.md, "What the inspector keeps").
 */
export interface InspectFile {
  /**
   * Whether whole model calls (request and response) are kept. Default: on when `npm start` runs
   * its own Redis (development), off when `REDIS_URL` is set (production).
   */
  readonly capture?: boolean;
  /** How long kept model calls live, in days (1 to 365). Default 7. */
  readonly retentionDays?: number;
  /** Model prices that replace or add to the built-in table, in US dollars per million tokens. */
  readonly prices?: Readonly<Record<string, { readonly input: number; readonly output: number; readonly cacheRead?: number; readonly cacheWrite?: number }>>;
}

/** A surface template of the app's `surfaces/` folder. */
export interface AppSurfaceTemplate {
  /** The data kind it shows: its file name without the extension (`flight-results`). */
  readonly kind: string;
  /** Its file, relative to the app folder (`surfaces/flight-results.ts`). */
  readonly file: string;
  /** The module's default export, checked to be a function of at most two parameters. */
  readonly template: SurfaceTemplate;
}

/** Everything an app folder declares, validated and with defaults filled. */
export interface LoadedApp {
  /** `app` of `switchboard.yaml`. */
  readonly name: string;
  /** The actor that answers channels not routed elsewhere. */
  readonly entryActor: string;
  /** Every actor, sorted by name. */
  readonly actors: readonly ActorConfig[];
  /**
   * A route for every channel of {@link ROUTABLE_CHANNELS}; channels `switchboard.yaml` leaves out
   * go to {@link entryActor}. The `a2a` route always has `midTurn: 'followup'` (one turn per task).
   */
  readonly channels: Readonly<Record<RoutableChannel, ChannelRoute>>;
  readonly people: readonly Person[];
  /**
   * Who may write on each channel of {@link CHANNEL_NAMES}, as `switchboard.yaml` sets it.
   * `loadApp` always sets it; optional only so that apps built by hand in tests may leave it out
   * (every channel then has its default).
   */
  readonly senders?: Readonly<Record<ChannelName, SendersConfig>>;
  readonly approvals: readonly ApprovalConfig[];
  /**
   * Every schedule, disabled ones included, in file order. `loadApp` always sets it (`[]`
   * when there are none); optional only so that apps built by hand in tests may leave it out.
   */
  readonly schedules?: readonly ScheduleConfig[];
  /** The known peers, in file order, tokens resolved from the environment. `[]` when none. */
  readonly peers: readonly PeerConfig[];
  /**
   * What the model may cost (`budgets:`, defaults filled). `loadApp` always sets it; optional only
   * so that apps built by hand in tests may leave it out, and then nothing is limited.
   */
  readonly budgets?: BudgetsConfig;
  /** The names of the tools registered from `tools/`, sorted by file name. */
  readonly tools: readonly string[];
  /**
   * The surface templates of `surfaces/`, sorted by file name. `loadApp` always sets it (`[]` when
   * there are none); optional only so that apps built by hand in tests may leave it out.
   */
  readonly surfaces?: readonly AppSurfaceTemplate[];
  /** `switchboard.yaml` as parsed. */
  readonly config: SwitchboardConfig;
}
