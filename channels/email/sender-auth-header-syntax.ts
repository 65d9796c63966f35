/**
 * The RFC 5322 lexical pieces an `Authentication-Results` value is read with: comments, quoted
 * strings and `\` escapes.
 */

/** Drops RFC 5322 comments (nested, with `\` escapes), keeping quoted strings as they are; a comment becomes one space. */
export function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    if (char === '\\') {
      if (depth === 0) out += value.slice(index, index + 2);
      index += 1;
    } else if (quoted) {
      out += char;
      quoted = char !== '"';
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')' && depth > 0) {
      depth -= 1;
      if (depth === 0) out += ' ';
    } else if (depth === 0) {
      out += char;
      quoted = char === '"';
    }
  }
  return out;
}

/** `value` split at each `separator` outside a quoted string; escapes are kept as written. */
export function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    if (char === '\\') {
      current += value.slice(index, index + 2);
      index += 1;
    } else if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
      if (char === '"') quoted = !quoted;
    }
  }
  parts.push(current);
  return parts;
}

/** The content of a quoted string (`"a\"b"` → `a"b`); any other value as it is. */
export function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}
