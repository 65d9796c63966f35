/**
 * The header fields the loop guards read, built from the raw header lines rather than
 * `mailparser`'s parsed `headers` Map: that Map folds every `List-*` header into one `list`
 * object, keeps only the first `Precedence` and drops fields whose value parses to nothing (an
 * empty `Return-Path: <>` among them).
 */

/** One header field as the message carries it: the name in lower case, the value unfolded and trimmed. */
export interface HeaderField {
  readonly name: string;
  readonly value: string;
}

/** One raw header line as `mailparser` gives it in `headerLines`: lower-case `key`, and `line` as `Name: value`, folding included. */
export interface RawHeaderLine {
  readonly key: string;
  readonly line: string;
}

/**
 * Turns `mailparser`'s raw `headerLines` into {@link HeaderField}s: unfolded (RFC 5322 section
 * 2.2.3), the name lower-cased, the value after the first colon trimmed. Encoded words are left as
 * they are: every header the guards read is plain ASCII.
 *
 * @example
 * const parsed = await simpleParser(raw);
 * automatedMailReason({ headers: headerFieldsFromLines(parsed.headerLines), from: parsed.from?.value[0]?.address });
 */
export function headerFieldsFromLines(lines: readonly RawHeaderLine[]): HeaderField[] {
  return lines.map(({ key, line }) => {
    const unfolded = line.replace(/\r?\n(?=[ \t])/g, '');
    const colon = unfolded.indexOf(':');
    return { name: key.toLowerCase(), value: colon === -1 ? '' : unfolded.slice(colon + 1).trim() };
  });
}
