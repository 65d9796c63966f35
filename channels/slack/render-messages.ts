/**
 * Parts as Slack messages: the kit's Slack mrkdwn (headings as bold lines, `&`, `<`, `>` escaped,
 * links `<url|label>`), in messages numbered `(1/3)` when an answer needs more than one, each
 * message a run of section blocks with the same mrkdwn as its `text` fallback.
 *
 * Artifacts are not uploaded here: a part with a URL becomes a link line, one with only an
 * artifact id a line naming the file (the bytes reach Slack by another way, or not at all).
 */
import type { types } from '@slack/bolt';
import type { Part } from '../../src/protocol/parts/part.ts';
import type { Destination } from '../../src/runtime/injection.ts';
import type { Attachment } from '../kit/render/artifacts.ts';
import { chunkBlocks, chunkText } from '../kit/render/chunk.ts';
import { renderForChannel } from '../kit/render/render-for-channel.ts';
import { escapeSlack, slackLink } from '../kit/render/render-slack.ts';
import { textSection } from './render-blocks.ts';
import { inThread, whereOf } from './render-where.ts';
import { MAX_SECTION_CHARS, type SlackPayload } from './slack-payload.ts';

/**
 * Most characters of mrkdwn in one message, numbering included. Slack refuses a message whose
 * blocks hold about 12,000 characters or more (`msg_blocks_too_long`; the limit is not
 * documented), so this leaves room. A message of this size makes a few section blocks, far below 50.
 */
export const MESSAGE_MAX_CHARS = 9000;

/** `:paperclip: <url|name>`, or `:paperclip: name` for a file known by its artifact id only. */
function fileLine(file: Attachment): string {
  return `:paperclip: ${file.url === undefined ? escapeSlack(file.name) : slackLink(file.name, file.url)}`;
}

/**
 * The mrkdwn messages of `parts`: the answer in chunks of at most {@link MESSAGE_MAX_CHARS},
 * numbered when more than one, then the file lines of its artifacts. Empty when nothing shows.
 */
export function messageTexts(parts: readonly Part[]): string[] {
  const rendering = renderForChannel({ format: 'slack', maxChars: MESSAGE_MAX_CHARS, attachments: true }, parts);
  const files = chunkBlocks(rendering.attachments.map(fileLine), { maxChars: MESSAGE_MAX_CHARS, numbering: 'none' });
  return [...rendering.chunks, ...files];
}

/**
 * The section blocks of one message's mrkdwn: split at paragraphs, then lines, to at most
 * {@link MAX_SECTION_CHARS} each; a code block is cut (and fenced again) only when it alone is longer.
 */
export function sectionsOf(text: string): types.SectionBlock[] {
  return chunkText(text, { maxChars: MAX_SECTION_CHARS, numbering: 'none' }).map(textSection);
}

/** `parts` as `post` payloads in the destination's thread. */
export function postsOf(parts: readonly Part[], destination: Destination): SlackPayload[] {
  const where = whereOf(destination);
  return messageTexts(parts).map((text) => ({ op: 'post', channel: where.channel, ...where.team, ...inThread(where), text, blocks: sectionsOf(text) }));
}

/**
 * A notice: `ephemeral` payloads for the destination's `ephemeralUser` when it names one (the
 * answer to a click on an approval card is for the clicker alone), else `post` payloads.
 */
export function noticeOf(text: string, destination: Destination): SlackPayload[] {
  const parts: Part[] = [{ text, metadata: { partType: 'response' } }];
  const where = whereOf(destination);
  const user = where.ephemeralUser;
  if (user === undefined) return postsOf(parts, destination);
  return messageTexts(parts).map((chunk) => ({ op: 'ephemeral', channel: where.channel, ...where.team, user, ...inThread(where), text: chunk }));
}
