/**
 * The built-in `notify` tool: lets an actor send a short message to a known person (or, with
 * `person: "me"`, to the known person it is talking to), on their preferred enabled channel,
 * outside the conversation it is answering.
 */
import { createHash } from 'node:crypto';
import type { GeneralistToolDefinition, ToolHandlerContext } from '../../protocol/tools/tool-definition.ts';
import type { Person } from '../app/app-types.ts';
import type { Destination } from '../injection.ts';
import { DEFAULT_CHANNEL_PREFERENCE, resolveRecipient } from './resolve-recipient.ts';

/** The tool's name, as actors list it and `approvals` in `switchboard.yaml` name it. */
export const NOTIFY_TOOL_NAME = 'notify';

/** Longest message text, in characters (ten SMS segments). */
export const NOTIFY_MAX_TEXT_CHARS = 1600;

/** Most people listed by id in the tool's description. */
const LISTED_PEOPLE = 50;

/** The `person` that means the person the actor is talking to (`ToolHandlerContext.personId`). */
export const NOTIFY_ME = 'me';

/** Arguments of `notify`, after schema validation. */
export interface NotifyArgs {
  /** A person id from `people`, or {@link NOTIFY_ME} for the person the actor is talking to. */
  readonly person: string;
  /** 1 to {@link NOTIFY_MAX_TEXT_CHARS} characters, not only spaces. */
  readonly text: string;
  /** Only this channel; one of the enabled channels. */
  readonly channel?: string;
}

/** Options of {@link createNotifyTool}. */
export interface NotifyToolOptions {
  /** The app's people: the only recipients. */
  readonly people: readonly Person[];
  /** The channels this service runs; the schema's `channel` enum lists them. */
  readonly enabledChannels: readonly string[];
  /** Order a person's channels are tried in. Default {@link DEFAULT_CHANNEL_PREFERENCE}. */
  readonly preference?: readonly string[];
  /**
   * Delivers `text` at `destination`. `idempotencyKey` is the same for every run of one call (a
   * retried turn, a call resumed after approval), so a sender that drops repeated keys (the
   * outbound queue) sends once. A rejection becomes a tool error the model reads.
   */
  readonly send: (destination: Destination, text: string, idempotencyKey: string) => Promise<void>;
  /** Whether calls need approval: `true` when `switchboard.yaml` has an `approvals` entry for `notify`. */
  readonly requiresApproval: boolean;
}

/**
 * The idempotency key of one `notify` call: `notify:` and the SHA-256 of the session, the turn and
 * the arguments. Two identical calls in one turn share it, and so send once.
 */
export function notifyIdempotencyKey(ctx: Pick<ToolHandlerContext, 'sessionId' | 'turnId'>, args: NotifyArgs): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([ctx.sessionId, ctx.turnId, args.person, args.channel ?? '', args.text]))
    .digest('hex');
  return `notify:${digest}`;
}

/** The failure of `person: "me"` when the sender is not a known person. */
const NOT_A_PERSON =
  `"${NOTIFY_ME}" is the person you are talking to, and they are not a known person, so nothing was sent. ` +
  'Only people listed in this tool\'s description can be messaged.';

function describe(people: readonly Person[], order: readonly string[]): string {
  const listed = people.slice(0, LISTED_PEOPLE).map((person) => `${person.id} (${person.name})`);
  const more = people.length > LISTED_PEOPLE ? `, and ${people.length - LISTED_PEOPLE} more` : '';
  return (
    'Send a short plain-text message to a known person, outside this conversation (to answer the person you are ' +
    `talking to, use respond; to reach them on another channel, use person "${NOTIFY_ME}"). It goes to their first ` +
    `reachable channel in the order ${order.join(', ')}, unless channel is given. ` +
    `People: ${people.length === 0 ? '(none)' : listed.join(', ') + more}.`
  );
}

/**
 * Creates the `notify` tool definition (generalist, routed), ready for `ToolRegistry.register`.
 *
 * @example
 * registry.register(createNotifyTool({ people: app.people, enabledChannels: ['web', 'sms'], send, requiresApproval: false }));
 */
export function createNotifyTool(options: NotifyToolOptions): GeneralistToolDefinition<NotifyArgs, string> {
  const order = (options.preference ?? DEFAULT_CHANNEL_PREFERENCE).filter((channel) => options.enabledChannels.includes(channel));
  const channel = { type: 'string', enum: [...order], description: 'Only this channel. Default: the first the person is reachable on.' };
  return {
    name: NOTIFY_TOOL_NAME,
    description: describe(options.people, order),
    scope: 'generalist',
    routing: 'routed',
    tags: ['write', 'message'],
    requiresApproval: options.requiresApproval,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['person', 'text'],
      properties: {
        person: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: `The id of a known person, e.g. "grace", or "${NOTIFY_ME}" for the person you are talking to.`,
        },
        text: { type: 'string', minLength: 1, maxLength: NOTIFY_MAX_TEXT_CHARS, pattern: '\\S', description: 'The message, plain text.' },
        ...(order.length === 0 ? {} : { channel }),
      },
    },
    handler: async (args, ctx) => {
      const personId = args.person === NOTIFY_ME ? ctx.personId : args.person;
      if (personId === undefined) throw new Error(NOT_A_PERSON);
      const preference = args.channel === undefined ? order : [args.channel];
      const resolved = resolveRecipient({ personId }, { people: options.people, enabledChannels: order, preference });
      if (!resolved.ok) throw new Error(`${resolved.message} Nothing was sent.`);
      const { destination, person } = resolved;
      await options.send(destination, args.text, notifyIdempotencyKey(ctx, args));
      return `Sent to ${person?.name ?? personId} by ${destination.channel}.`;
    },
  };
}
