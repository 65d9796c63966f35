/**
 * Reading the `Authentication-Results` header fields of a raw message (RFC 8601 section 2.2):
 * the authserv-id of each and its `method=result property=value …` results.
 */
import { splitOutsideQuotes, unquote, withoutComments } from './sender-auth-header-syntax.ts';
import { headerFieldsFromLines } from './loop-guards.ts';
import type { HeaderField, RawHeaderLine } from './loop-guards.ts';

/** One result of an `Authentication-Results` header: `dkim=pass header.d=example.com`. */
export interface AuthResult {
  /** The method in lower case, without a version (`dkim/1` → `dkim`). */
  readonly method: string;
  /** The result in lower case (`pass`, `fail`, …). */
  readonly result: string;
  /** `ptype.property` (and `reason`) to value, names lower-cased. */
  readonly properties: ReadonlyMap<string, string>;
}

/** One `Authentication-Results` header field. */
interface AuthenticationResults {
  /** The authserv-id, in lower case. */
  readonly authservId: string;
  readonly results: readonly AuthResult[];
}

/** The `Authentication-Results` header fields of `raw` (the whole message), top first. */
export function authenticationResults(raw: Buffer): AuthenticationResults[] {
  return headerFields(raw)
    .filter((field) => field.name === 'authentication-results')
    .map((field) => parseAuthenticationResults(field.value));
}

/** The header fields of a raw message, top first (everything before the first empty line, read as latin1). */
function headerFields(raw: Buffer): HeaderField[] {
  const ends = [raw.indexOf('\r\n\r\n'), raw.indexOf('\n\n')].filter((index) => index !== -1);
  const block = raw.subarray(0, ends.length === 0 ? raw.length : Math.min(...ends)).toString('latin1');
  const lines: RawHeaderLine[] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = lines.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) {
      lines[lines.length - 1] = { key: last.key, line: `${last.line}\r\n${line}` };
    } else if (line.includes(':')) {
      lines.push({ key: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line });
    }
  }
  return headerFieldsFromLines(lines);
}

/** The authserv-id and results of an `Authentication-Results` value, comments removed. */
function parseAuthenticationResults(value: string): AuthenticationResults {
  const [head = '', ...resinfos] = splitOutsideQuotes(withoutComments(value), ';');
  const authservId = unquote(head.trim().split(/\s+/, 1)[0] ?? '').toLowerCase();
  const results = resinfos.map(parseResult).filter((result): result is AuthResult => result !== undefined);
  return { authservId, results };
}

/** One `method=result property=value …` segment; `undefined` for `none` or anything unreadable. */
function parseResult(segment: string): AuthResult | undefined {
  const pairs = [...segment.matchAll(/([A-Za-z0-9_.\-/]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)/g)];
  const [first, ...rest] = pairs;
  if (first === undefined) return undefined;
  const method = (first[1] ?? '').split('/', 1)[0]?.toLowerCase() ?? '';
  const properties = new Map(rest.map((pair) => [(pair[1] ?? '').toLowerCase(), unquote(pair[2] ?? '')] as const));
  return { method, result: unquote(first[2] ?? '').toLowerCase(), properties };
}
