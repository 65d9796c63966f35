/**
 * Secrets kept out of what the service records (the event log, captured model calls, the process
 * log): values under a secret-looking name (`authorization`, `cookie`, `apiKey`, `…token`,
 * `…secret`, `password`), strings shaped like credentials (`Bearer …`, `sk-ant-…`, Slack and GitHub
 * tokens, AWS key ids, JWTs, passwords in URLs, `token=` query parameters, `Authorization:` header
 * lines), and the configured secrets themselves wherever they appear.
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Paths a pino logger censors (`pino({ redact: { paths: LOG_REDACT_PATHS } })`): request and error
 * headers that carry credentials.
 */
export const LOG_REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-api-key"]',
  '*.headers["set-cookie"]',
];

/** Removes secrets from text, JSON text and values. */
export interface Redactor {
  /** `value` with every credential-shaped string and configured secret replaced by {@link REDACTED}. */
  readonly text: (value: string) => string;
  /**
   * JSON text with secrets removed, still valid JSON: returned as it is (no parsing) when nothing
   * in it looks secret, otherwise parsed, cleaned with {@link Redactor.value} and written again.
   */
  readonly json: (value: string) => string;
  /** A copy of `value` with secrets removed from every string, and secret-named fields replaced whole. */
  readonly value: <T>(value: T) => T;
}

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /**
   * Secret values to remove wherever they appear (API keys, tokens, passwords of the deployment).
   * Values shorter than 8 characters are ignored: too short to find without false matches.
   */
  readonly secrets?: Iterable<string | undefined>;
}

/** Shortest configured secret looked for, in characters. */
const MIN_SECRET_CHARS = 8;

/** A field name (compared without `-`, `_` and case) whose value is a secret. */
const SECRET_NAME = /(authorization|cookie|apikey|token|secret|password|passwd|privatekey|credentials)$/;

/** A password in a URL (`scheme://user:password@`). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s"]*:)[^@/\s"]+@/gi;

/** Credential-shaped text, each with what it becomes. */
const PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key)(\s*[:=]\s*)[^\r\n"]+/gi, `$1$2${REDACTED}`],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\bx(?:ox[abposr]|app)-[A-Za-z0-9-]{8,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  [URL_PASSWORD, `$1${REDACTED}@`],
  [/([?&](?:token|access_token|api_key|apikey|key|sig|signature|secret|password)=)[^&\s"#]+/gi, `$1${REDACTED}`],
];

/**
 * The end of a JSON member name that {@link isSecretName} would take, separators and all
 * (`…x-api-key":`). Not anchored at the name's opening quote: a quick test, which may say yes to
 * more than it should (the full clean then finds nothing), never to less.
 */
const SECRET_MEMBER_END = /(authorization|cookie|api[-_]?key|token|secret|passw(?:or)?d|private[-_]?key|credentials)"\s*:/;

/** {@link URL_PASSWORD} as a test: the costliest of {@link PATTERNS} to look for, so only tried in text with `://`. */
const HAS_URL_PASSWORD = new RegExp(URL_PASSWORD.source, 'i');

/** Every other one of {@link PATTERNS}, or a secret-named JSON member, as one test. */
const SUSPECT = new RegExp(
  [...PATTERNS.filter(([pattern]) => pattern !== URL_PASSWORD).map(([pattern]) => pattern.source), SECRET_MEMBER_END.source].join('|'),
  'i',
);

/** Whether JSON text needs cleaning at all: it has something {@link PATTERNS} or a secret-named member would match. */
function suspect(json: string): boolean {
  if (SUSPECT.test(json)) return true;
  return json.includes('://') && HAS_URL_PASSWORD.test(json);
}

/** Whether a field name names a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.replace(/[-_]/g, '').toLowerCase());
}

/**
 * A {@link Redactor} that also removes `options.secrets`.
 *
 * @example
 * const redactor = createRedactor({ secrets: [process.env['ANTHROPIC_API_KEY']] });
 * redactor.text('Authorization: Bearer abc.def.ghi123') // 'Authorization: [redacted]'
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const secrets = [...new Set([...(options.secrets ?? [])].filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_CHARS))]
    // Longest first, so a secret that contains another is removed whole.
    .sort((a, b) => b.length - a.length);
  // How each secret reads inside JSON text (quotes and backslashes escaped).
  const inJson = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  const text = (value: string): string => {
    let out = value;
    for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
  const value = <T>(input: T): T => clean(input, text) as T;
  return {
    text,
    value,
    json: (json) => {
      if (!suspect(json) && !inJson.some((secret) => json.includes(secret))) return json;
      return JSON.stringify(value(JSON.parse(json) as unknown));
    },
  };
}

/** `input` with `text` applied to every string and secret-named fields replaced whole. */
function clean(input: unknown, text: (value: string) => string): unknown {
  if (typeof input === 'string') return text(input);
  if (Array.isArray(input)) return input.map((item) => clean(item, text));
  if (typeof input !== 'object' || input === null) return input;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(input)) {
    out[key] = isSecretName(key) && (typeof item === 'string' || typeof item === 'number') ? REDACTED : clean(item, text);
  }
  return out;
}
