/**
 * Checks the Slack renderer's tests apply to what it writes: characters Slack would read as markup
 * left unescaped, markdown left in mrkdwn, and every mrkdwn text of a payload. For tests only.
 */
import type { SlackPayload } from './slack-payload.ts';

/** The `<…>` tokens Slack mrkdwn may hold: links `<url|label>`, user mentions, date tokens. */
const TOKENS = [/<(?:https?|mailto):[^<>|\s]+(?:\|[^<>]+)?>/g, /<@[UW][A-Z0-9]+>/g, /<!date\^\d+\^[^|<>]+\|[^<>]+>/g];

/**
 * What is unescaped in mrkdwn `text`: a `<` or `>` outside the tokens Slack reads (and the `>` that
 * opens a quote line), an `&` that does not start `&amp;`, `&lt;` or `&gt;`.
 */
export function escapeProblems(text: string): string[] {
  const rest = TOKENS.reduce((left, token) => left.replace(token, ' '), text).replace(/^>(?= |$)/gm, ' ');
  const problems = [...rest.matchAll(/[<>]|&(?!amp;|lt;|gt;)/g)].map((match) => match[0]);
  return [...new Set(problems)];
}

/** `text` without its code: fenced blocks and inline code spans, whose content is shown as written. */
function outsideCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
}

/** Markdown left in mrkdwn `text` outside code: `**`, `__`, a `#` heading, a `](` link. */
export function markdownLeft(text: string): string[] {
  const prose = outsideCode(text);
  const found = ['**', '__', ']('].filter((mark) => prose.includes(mark));
  return /^\s*#{1,6}\s/m.test(prose) ? [...found, '#'] : found;
}

interface TextHolder {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly fields?: readonly TextHolder[];
  readonly elements?: readonly TextHolder[];
}

function blockTexts(holder: TextHolder): string[] {
  const own = holder.type === 'mrkdwn' && typeof holder.text === 'string' ? [holder.text] : [];
  const inner = typeof holder.text === 'object' && holder.text !== null ? blockTexts(holder.text) : [];
  return [...own, ...inner, ...[...(holder.fields ?? []), ...(holder.elements ?? [])].flatMap(blockTexts)];
}

/** Every mrkdwn text of `payload`: its `text` (or status) and each mrkdwn object of its blocks. */
export function mrkdwnTexts(payload: SlackPayload): string[] {
  const top = payload.op === 'status' ? payload.status : payload.text;
  const blocks = payload.op === 'post' || payload.op === 'update' ? (payload.blocks ?? []) : [];
  return [top, ...blocks.flatMap((block) => blockTexts(block as TextHolder))];
}

/** The texts of the section blocks of `payload` (none for other ops). */
export function sectionTexts(payload: SlackPayload): string[] {
  const blocks = payload.op === 'post' || payload.op === 'update' ? (payload.blocks ?? []) : [];
  return blocks.flatMap((block) => (block.type === 'section' && block.text !== undefined ? [block.text.text] : []));
}
