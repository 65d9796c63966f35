/**
 * JSON Schemas (draft-07) of the YAML files of an app folder. They check shapes only; references
 * between files (actor names, tools, people) are checked afterwards by the loader.
 */
import { DEFAULT_ACTOR_LIMITS } from '../actor/actor-config.ts';
import { CHANNEL_NAMES, ROUTABLE_CHANNELS } from './app-types.ts';

/** Actor names: what `actors/<name>.yaml` and `passTo` use. */
const ACTOR_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

/** Person ids, role names and schedule ids: lower-case letters, digits, `.`, `_` and `-`. */
export const PERSON_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';

/**
 * Peer ids: lower-case letters, digits, `_` and `-`, at most 60 characters, so that the peer's
 * tool `ask_<id>` (with `-` as `_`) fits the 64-character limit of tool names.
 */
export const PEER_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,59}$';

/** A peer's `token`: `env:` and the name of an environment variable. */
export const PEER_TOKEN_PATTERN = '^env:[A-Za-z_][A-Za-z0-9_]*$';

/** An E.164 phone number: `+`, then up to 15 digits, the first not 0. */
export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

const MID_TURN_MODES = ['steer', 'followup'];

const nonEmptyText = { type: 'string', pattern: '\\S', description: 'a non-empty text' };

const actorName = {
  type: 'string',
  pattern: ACTOR_NAME_PATTERN,
  description: 'an actor name: lower-case letters, digits, "_" or "-", starting with a letter',
};

const midTurn = { type: 'string', enum: MID_TURN_MODES };

const strings = (item: Record<string, unknown>): Record<string, unknown> => ({
  type: 'array',
  items: item,
  uniqueItems: true,
});

/** The schema of `actors/<name>.yaml`. */
export const ACTOR_FILE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'system'],
  properties: {
    name: actorName,
    model: nonEmptyText,
    system: { ...nonEmptyText, description: 'the system prompt, a non-empty text' },
    tools: strings({ type: 'string', minLength: 1 }),
    midTurn,
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(
        Object.keys(DEFAULT_ACTOR_LIMITS).map((key) => [key, { type: 'integer', minimum: 1 }]),
      ),
    },
  },
};

const whatsAppTemplate = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'language'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9_]{1,512}$', description: 'an approved template name (lower-case letters, digits, "_")' },
    language: { type: 'string', pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', description: 'the template language code, such as en or en_US' },
  },
};

const sendRate = {
  type: 'object',
  additionalProperties: false,
  required: ['max', 'perSeconds'],
  properties: {
    max: { type: 'integer', minimum: 1, description: 'the most sends in the window, a whole number from 1' },
    perSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 86400, description: 'the window in seconds, above 0 and at most 86400' },
  },
};

const channelRoute = {
  type: 'object',
  additionalProperties: false,
  properties: {
    actor: actorName,
    // Checked by resolve-senders.ts, whose messages say what each mode and pattern may be.
    senders: { description: 'open, allowlist or pairing, or { mode, allow, refusal }' },
    midTurn,
    maxSegments: { type: 'integer', minimum: 1, maximum: 30, description: 'the most SMS segments one answer may use, from 1 to 30' },
    groups: { enum: ['mentions', 'all', 'off'], description: 'which WhatsApp group messages start a turn: mentions, all or off' },
    templates: {
      type: 'object',
      additionalProperties: false,
      properties: { approval: whatsAppTemplate, notice: whatsAppTemplate },
    },
    sendLimits: {
      type: 'object',
      additionalProperties: false,
      properties: { perConversation: sendRate, perChannel: sendRate, perMethod: { type: 'object', additionalProperties: sendRate }, concurrency: { type: 'integer', minimum: 1, maximum: 64, description: 'sends in flight at once per worker, from 1 to 64' } },
    },
  },
};

const addressLists: Record<string, Record<string, unknown>> = {
  email: strings({ type: 'string', format: 'email', description: 'an email address' }),
  sms: strings({ type: 'string', pattern: E164_PATTERN, description: 'an E.164 phone number such as +447700900123' }),
  slack: strings({ type: 'string', minLength: 1 }),
  whatsapp: strings({ type: 'string', pattern: E164_PATTERN, description: 'an E.164 phone number such as +447700900123' }),
  web: strings({ type: 'string', minLength: 1 }),
};

const personId = {
  type: 'string',
  pattern: PERSON_ID_PATTERN,
  description: 'an id of lower-case letters, digits, ".", "_" or "-"',
};

const person = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'addresses'],
  properties: {
    id: personId,
    name: nonEmptyText,
    addresses: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(CHANNEL_NAMES.map((channel) => [channel, addressLists[channel]])),
    },
    roles: strings({ ...personId, description: 'a role name of lower-case letters, digits, ".", "_" or "-"' }),
  },
};

const approval = {
  type: 'object',
  additionalProperties: false,
  required: ['tool', 'approvers'],
  properties: {
    tool: { type: 'string', minLength: 1 },
    approvers: strings({
      type: 'string',
      pattern: '^(role:)?[a-z0-9][a-z0-9._-]{0,63}$',
      description: 'a person id or "role:<name>"',
    }),
    allowRequester: { type: 'boolean' },
    expiresInMinutes: { type: 'integer', minimum: 1 },
  },
};

const schedule = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'cron', 'actor', 'prompt', 'to'],
  properties: {
    id: { ...personId, description: 'a schedule id of lower-case letters, digits, ".", "_" or "-"' },
    cron: { ...nonEmptyText, description: 'a cron pattern such as "0 9 * * 1-5"' },
    actor: actorName,
    prompt: { ...nonEmptyText, description: 'the prompt, a non-empty text' },
    to: { ...nonEmptyText, description: 'a person id or "<channel>:<address>"' },
    timezone: { ...nonEmptyText, description: 'an IANA time zone such as Europe/London' },
    enabled: { type: 'boolean' },
  },
};

/** The `a2a` route: an actor only (its turns always run in `followup` mode, one turn per task). */
const a2aRoute = {
  type: 'object',
  additionalProperties: false,
  required: ['actor'],
  properties: { actor: actorName },
};

const peer = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'token'],
  properties: {
    id: {
      type: 'string',
      pattern: PEER_ID_PATTERN,
      description: 'a peer id of lower-case letters, digits, "_" or "-", at most 60 characters',
    },
    name: nonEmptyText,
    token: {
      type: 'string',
      pattern: PEER_TOKEN_PATTERN,
      description: 'env:<VARIABLE>, naming the environment variable that holds the bearer token',
    },
    url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: "the peer's absolute http(s) base URL" },
    consumes: strings({ type: 'string', minLength: 1, description: 'an envelope part type such as llm-context' }),
    actor: actorName,
    timeoutSeconds: { type: 'number', exclusiveMinimum: 0, description: 'a positive number of seconds' },
  },
};

/** A budget limit; `resolveBudgets` checks the value, so one message covers both forms. */
const budgetLimit = { description: 'a whole number of 0 or more, or unlimited' };

const budgetLimits = {
  type: 'object',
  additionalProperties: false,
  properties: { tokensPerDay: budgetLimit, tokensPerMonth: budgetLimit, callsPerDay: budgetLimit, callsPerMonth: budgetLimit },
};

const budgets = {
  type: 'object',
  additionalProperties: false,
  properties: {
    unknownSenders: budgetLimits,
    knownSenders: budgetLimits,
    people: { type: 'object', additionalProperties: budgetLimits },
    conversations: budgetLimits,
    deployment: budgetLimits,
    turnsPerMinute: budgetLimit,
  },
};

/** A model's price in US dollars per million tokens (see `src/runtime/inspect/model-prices.ts`). */
const modelPrice = {
  type: 'object',
  additionalProperties: false,
  required: ['input', 'output'],
  properties: Object.fromEntries(['input', 'output', 'cacheRead', 'cacheWrite'].map((name) => [name, { type: 'number', minimum: 0, description: 'US dollars per million tokens, 0 or more' }])),
};

/** What the inspector keeps (`inspect:`): whole model calls or not, for how long, and the prices of models. */
const inspect = {
  type: 'object',
  additionalProperties: false,
  properties: {
    capture: { type: 'boolean' },
    retentionDays: { type: 'integer', minimum: 1, maximum: 365, description: 'a whole number of days from 1 to 365' },
    prices: { type: 'object', additionalProperties: modelPrice },
  },
};

/** The schema of `switchboard.yaml`. */
export const SWITCHBOARD_FILE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['app', 'entryActor'],
  properties: {
    app: { ...nonEmptyText, description: 'the app name, a non-empty text' },
    entryActor: actorName,
    channels: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(ROUTABLE_CHANNELS.map((channel) => [channel, channel === 'a2a' ? a2aRoute : channelRoute])),
    },
    people: { type: 'array', items: person },
    approvals: { type: 'array', items: approval },
    schedules: { type: 'array', items: schedule },
    peers: { type: 'array', items: peer },
    budgets,
    inspect,
    models: {
      type: 'object',
      additionalProperties: false,
      properties: { llmContext: { ...nonEmptyText, description: 'the model that writes llm-context for peers, e.g. claude-haiku-5-5' } },
    },
  },
};
