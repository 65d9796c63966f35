/**
 * How a mail looks: the HTML document around the content (inline styles only, which every mail
 * client keeps), and the signature both alternatives end with.
 */
import { escapeHtmlText } from '../kit/render/html-escape.ts';

/** Inline style of each tag the kit's HTML renderer writes without attributes. */
const TAG_STYLES: Readonly<Record<string, string>> = {
  p: 'margin:0 0 12px',
  h2: 'margin:20px 0 8px;font-size:19px',
  h3: 'margin:18px 0 8px;font-size:17px',
  h4: 'margin:16px 0 8px;font-size:15px',
  ul: 'margin:0 0 12px;padding-left:22px',
  ol: 'margin:0 0 12px;padding-left:22px',
  table: 'border-collapse:collapse;width:100%;margin:0 0 16px;font-size:14px',
  th: 'text-align:left;padding:6px 8px;border-bottom:2px solid #d0d7de;background:#f6f8fa',
  td: 'text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid #e5e7eb',
  pre: 'white-space:pre-wrap;background:#f6f8fa;padding:8px;border-radius:4px',
  blockquote: 'margin:0 0 12px;padding-left:10px;border-left:3px solid #d0d7de;color:#57606a',
};

/** The font of the whole document. */
const FONT_STYLE = 'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2328';

/** Inline styles on the kit's attribute-free tags (text is escaped, so only real tags match). */
function styled(fragment: string): string {
  return fragment.replace(/<(p|h2|h3|h4|ul|ol|table|th|td|pre|blockquote)(?=[\s>])/g, (match, tag: string) => `${match} style="${TAG_STYLES[tag] ?? ''}"`);
}

/** The name part of a `From:` value (`"Concierge" <bot@example.com>` → `Concierge`), else the bare address. */
function displayName(from: string, fromAddress: string): string {
  const name = from.replace(/<[^>]*>/g, '').replace(/^[\s"']+|[\s"']+$/g, '');
  return name === '' ? fromAddress : name;
}

/** The line that signs every mail: `<sender's name> · automated assistant`. */
export function signatureOf(from: string, fromAddress: string): string {
  return `${displayName(from, fromAddress)} · automated assistant`;
}

/** The plain-text alternative: `text`, then the signature after the standard `-- ` delimiter line. */
export function signedText(text: string, signature: string): string {
  return `${text}\n\n-- \n${signature}`;
}

/**
 * The HTML alternative: a whole document titled `subject`, at most 640 px wide, with the `body`
 * fragment styled inline and the signature in small grey type at its end.
 */
export function htmlDocument(subject: string, body: string, signature: string): string {
  return [
    '<!DOCTYPE html>',
    `<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtmlText(subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:#ffffff"><div style="max-width:640px;margin:0 auto;padding:16px;${FONT_STYLE}">`,
    styled(body),
    `<p style="margin:24px 0 0;font-size:13px;color:#656d76">${escapeHtmlText(signature)}</p>`,
    '</div></body></html>',
  ].join('\n');
}
