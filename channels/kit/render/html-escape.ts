/**
 * Escaping for the HTML renderer, matched to what an HTML sanitiser writes back, so that sanitising
 * the output leaves it byte-identical.
 */

/** Text content: `&`, `<` and `>` escaped; quotes are left as they are. */
export function escapeHtmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A double-quoted attribute value: `&`, `<`, `>` and `"` escaped. */
export function escapeHtmlAttribute(value: string): string {
  return escapeHtmlText(value).replace(/"/g, '&quot;');
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);
}
