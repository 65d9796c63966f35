/**
 * The note that tells the model, at the start of a session's next turn, about messages of earlier
 * turns that the person may not have received: deliveries given up because a worker stopped
 * mid-send and the provider could not say whether it took them (the channel's rule is at most
 * once; see docs/channels.md, "Unknown outcomes"). The model then says so to the person, in its
 * own words, and repeats what still matters.
 */
import type { ModelInputBlock } from '../model/model-types.ts';

/** A message given up, as the outbound queue keeps it for the session (`UndeliveredNote`). */
export interface MissedMessage {
  /** ISO 8601 time it was given up. */
  readonly at: string;
  readonly channel: string;
  /** The start of its text, when it had text. */
  readonly excerpt?: string;
}

/**
 * The text block that goes before the turn's new messages.
 *
 * @example
 * undeliveredNotice([{ at: '2026-03-01T09:12:00.000Z', channel: 'slack', excerpt: 'Your table is booked' }]);
 * // { type: 'text', text: '[delivery-notice] 1 message of yours in this conversation may not have reached …' }
 */
export function undeliveredNotice(missed: readonly MissedMessage[]): ModelInputBlock {
  const lines = missed.map((message, index) => {
    const what = message.excerpt === undefined ? 'a message without text' : `the message that began ${JSON.stringify(message.excerpt)}`;
    return `${String(index + 1)}. ${what} (${message.channel}, given up at ${message.at})`;
  });
  const count = missed.length === 1 ? '1 message' : `${String(missed.length)} messages`;
  return {
    type: 'text',
    text:
      `[delivery-notice] ${count} of yours in this conversation may not have reached the person: the service ` +
      'stopped while sending and could not confirm the send, so it did not send again (to avoid a duplicate). ' +
      'Tell the person briefly that a message may be missing, and repeat what still matters.\n' +
      lines.join('\n'),
  };
}
