/**
 * What the Slack renderer asks the sender to do, one Web API call each, as a plain JSON object (it
 * is kept in the outbound queue and its ledger): post a message, set or clear the assistant
 * thread's status, update a message posted before, or post an ephemeral message to one person.
 */
import type { types } from '@slack/bolt';
import { SwitchboardError } from '../../src/protocol/errors.ts';

/** One Block Kit block of a message. */
export type SlackBlock = types.KnownBlock;

/** Longest `text` of a message, in characters: Slack truncates beyond it. */
export const MAX_TEXT_CHARS = 40_000;

/** Most blocks in one message. */
export const MAX_BLOCKS = 50;

/** Longest mrkdwn text of a section block, in characters. */
export const MAX_SECTION_CHARS = 3000;

/** Longest assistant status the renderer writes, in characters (Slack shows it after the app's name). */
export const MAX_STATUS_CHARS = 50;

/** Where a call goes: a Slack conversation (`C…`, `D…`, `G…`) of a workspace. */
type Where = {
  /** The conversation id: `destination.address`. */
  readonly channel: string;
  /** The workspace (`destination.thread.teamId`), for picking its token; absent with one workspace. */
  readonly teamId?: string;
};

/**
 * One call for the sender. A type alias (not an interface), so that it is a `ChannelMessage`.
 * - `post`: `chat.postMessage`; with `key`, the sender remembers the new message's `ts` under it.
 * - `status`: `assistant.threads.setStatus`; `''` clears the status.
 * - `update`: `chat.update` of the message `ts`, or of the one posted under `lookupKey`.
 * - `ephemeral`: `chat.postEphemeral`, seen by `user` only.
 */
export type SlackPayload =
  | (Where & {
      readonly op: 'post';
      /** The thread to post in (`destination.thread.threadTs`); absent: a message of its own. */
      readonly threadTs?: string;
      /** The notification and accessibility text (mrkdwn), at most {@link MAX_TEXT_CHARS}. */
      readonly text: string;
      /** At most {@link MAX_BLOCKS}. */
      readonly blocks?: readonly SlackBlock[];
      /** A name for the posted message, for a later `update` (e.g. `approval:<approvalId>`). */
      readonly key?: string;
    })
  | (Where & {
      readonly op: 'status';
      readonly threadTs: string;
      /** At most {@link MAX_STATUS_CHARS}; `''` clears it. */
      readonly status: string;
    })
  | (Where & {
      readonly op: 'update';
      /** The message to update; else the one posted under `lookupKey`. At least one of the two. */
      readonly ts?: string;
      readonly lookupKey?: string;
      readonly text: string;
      readonly blocks?: readonly SlackBlock[];
    })
  | (Where & {
      readonly op: 'ephemeral';
      /** The one person who sees it: a user id (`U…`). */
      readonly user: string;
      readonly threadTs?: string;
      readonly text: string;
    });

/** One of the `op` values. */
export type SlackOp = SlackPayload['op'];

const ID = /^[A-Z0-9]{2,}$/;
const TS = /^\d+\.\d+$/;

type Fields = Readonly<Record<string, unknown>>;
type Check = readonly [field: string, ok: (value: unknown) => boolean];

const optional = (check: (value: unknown) => boolean) => (value: unknown): boolean => value === undefined || check(value);
const isId = (value: unknown): boolean => typeof value === 'string' && ID.test(value);
const isTs = (value: unknown): boolean => typeof value === 'string' && TS.test(value);
const isName = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
const isText = (value: unknown): boolean => isName(value) && (value as string).length <= MAX_TEXT_CHARS;
const isStatus = (value: unknown): boolean => typeof value === 'string' && value.length <= MAX_STATUS_CHARS;
const isBlocks = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.length >= 1 &&
  value.length <= MAX_BLOCKS &&
  value.every((block: unknown) => typeof block === 'object' && block !== null && typeof (block as Fields)['type'] === 'string');

const WHERE: readonly Check[] = [['channel', isId], ['teamId', optional(isId)]];

const CHECKS: Readonly<Record<SlackOp, readonly Check[]>> = {
  post: [['threadTs', optional(isTs)], ['text', isText], ['blocks', optional(isBlocks)], ['key', optional(isName)]],
  status: [['threadTs', isTs], ['status', isStatus]],
  update: [['ts', optional(isTs)], ['lookupKey', optional(isName)], ['text', isText], ['blocks', optional(isBlocks)]],
  ephemeral: [['user', isId], ['threadTs', optional(isTs)], ['text', isText]],
};

function isOp(value: unknown): value is SlackOp {
  return typeof value === 'string' && Object.hasOwn(CHECKS, value);
}

/** The names of the fields of `payload` that do not have the shape of its `op`. */
function badFields(payload: Fields): string[] {
  const { op } = payload;
  if (!isOp(op)) return ['op'];
  const bad = [...WHERE, ...CHECKS[op]].filter(([field, ok]) => !ok(payload[field])).map(([field]) => field);
  if (op === 'update' && payload['ts'] === undefined && payload['lookupKey'] === undefined) bad.push('ts or lookupKey');
  return bad;
}

/**
 * `payload` (as read back from a queue) as a {@link SlackPayload}. Checks the fields of its `op`:
 * ids upper-case letters and digits, `ts` values `1712345678.000100`, texts not blank and at most
 * {@link MAX_TEXT_CHARS}, 1 to {@link MAX_BLOCKS} blocks each with a `type`, a status at most
 * {@link MAX_STATUS_CHARS}, an update naming its message by `ts` or `lookupKey`.
 *
 * @throws SwitchboardError `channel.invalid` naming the fields that are wrong.
 */
export function readSlackPayload(payload: Fields): SlackPayload {
  const fields = badFields(payload);
  if (fields.length > 0) {
    throw new SwitchboardError('channel.invalid', `Not a Slack payload: wrong ${fields.join(', ')}`, { details: { fields } });
  }
  return payload as unknown as SlackPayload;
}
