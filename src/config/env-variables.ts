/**
 * The environment variables switchboard reads: the public contract's, exactly as it names them,
 * then the ones of our own (docs/operations.md lists them all). Nothing else in the environment
 * is read by {@link loadEnv}.
 */
export const ENV_VARIABLES = [
  'PORT',
  'PUBLIC_URL',
  'REDIS_URL',
  'SWITCHBOARD_APP',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'IMAP_URL',
  'SMTP_URL',
  'EMAIL_FROM',
  'EMAIL_TRUSTED_AUTHSERV_ID',
  'TWILIO_ACCOUNT_SID',
  'TWILIO_AUTH_TOKEN',
  'TWILIO_SMS_FROM',
  'TWILIO_API_URL',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_API_URL',
  'WHATSAPP_MODE',
  'WHATSAPP_TOKEN',
  'WHATSAPP_PHONE_NUMBER_ID',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'WHATSAPP_API_URL',
  'WHATSAPP_SESSION_DIR',
  'CHROMIUM_PATH',
  'SESSION_SECRET',
  'TRUST_PROXY',
  'ADMIN_TOKEN',
  'LOG_LEVEL',
  'SWITCHBOARD_TURN_CONCURRENCY',
] as const;

/** One of {@link ENV_VARIABLES}. */
export type EnvVariable = (typeof ENV_VARIABLES)[number];

/**
 * Variables whose values are secrets or may embed one (a password inside a URL). Their values are
 * never quoted in an error message, a log line or `details`.
 */
export const SECRET_ENV_VARIABLES: ReadonlySet<EnvVariable> = new Set<EnvVariable>([
  'REDIS_URL',
  'ANTHROPIC_API_KEY',
  'IMAP_URL',
  'SMTP_URL',
  'TWILIO_AUTH_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'WHATSAPP_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'SESSION_SECRET',
  'ADMIN_TOKEN',
]);

/** The raw environment as given to {@link loadEnv}, usually `process.env`. */
export type RawEnv = Readonly<Record<string, string | undefined>>;

/** One thing wrong with the environment, always naming the variable at fault. */
export interface EnvProblem {
  /** The variable at fault (for a pair that must be set together, the one that is missing). */
  readonly variable: EnvVariable;
  /** What is wrong and how to fix it, as a sentence. Never contains a secret value. */
  readonly message: string;
}
