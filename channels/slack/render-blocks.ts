/**
 * Small Block Kit builders for the Slack renderer: sections of mrkdwn, field lists, context lines,
 * headers, and Slack's date tokens. Texts given to them are mrkdwn already escaped, except the
 * plain-text header.
 */
import type { types } from '@slack/bolt';
import { truncate } from '../kit/approvals/format-value.ts';
import { clockTimeOf } from '../kit/approvals/time-phrases.ts';
import { escapeSlack } from '../kit/render/render-slack.ts';
import { MAX_SECTION_CHARS } from './slack-payload.ts';

/** Most fields of one section block. */
export const MAX_FIELDS = 10;

/** Longest plain text of a header block, in characters. */
const MAX_HEADER_CHARS = 150;

const mrkdwn = (text: string): types.MrkdwnElement => ({ type: 'mrkdwn', text });

/** A section block of mrkdwn `text`, which must be 1 to {@link MAX_SECTION_CHARS} characters. */
export function textSection(text: string): types.SectionBlock {
  return { type: 'section', text: mrkdwn(text) };
}

/** A section of mrkdwn fields (two columns), at most {@link MAX_FIELDS}, 2000 characters each. */
export function fieldsSection(fields: readonly string[]): types.SectionBlock {
  return { type: 'section', fields: fields.slice(0, MAX_FIELDS).map(mrkdwn) };
}

/** A context block: one line of small mrkdwn text. */
export function contextLine(text: string): types.ContextBlock {
  return { type: 'context', elements: [mrkdwn(text)] };
}

/** A header block of plain `text` (not escaped), cut to Slack's 150 characters. */
export function headerBlock(text: string): types.HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, MAX_HEADER_CHARS), emoji: true } };
}

/**
 * Slack's date token for the ISO 8601 `iso`: each reader sees `today at 2:00 PM` in their own time
 * zone; a client that cannot shows `at 14:00 UTC` (the kit's clock time at `now` in `timeZone`).
 * Plain `at <iso>` when `iso` is not a date.
 */
export function slackDate(iso: string, now: Date, timeZone: string): string {
  const fallback = escapeSlack(`at ${clockTimeOf(iso, now, timeZone)}`);
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? fallback : `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${fallback}>`;
}

/** `text` cut to fit one section block once escaped (escaping may lengthen it up to five times). */
export function sectionText(text: string): string {
  return escapeSlack(truncate(text, Math.floor(MAX_SECTION_CHARS / 5)));
}
