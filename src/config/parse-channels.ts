import type { EnvReader } from './env-reader.ts';
import type { EnvVariable } from './env-variables.ts';
import type { EmailEnv, SlackEnv, SmsEnv } from './env-types.ts';
import { parseFrom, parseImapUrl, parseSmtpUrl } from './parse-mail.ts';
import { parseHttpUrl } from './parse-url.ts';

/** Default of `TWILIO_API_URL`. */
export const DEFAULT_TWILIO_API_URL = 'https://api.twilio.com';

/** Default of `SLACK_API_URL` (with its trailing slash, as Slack's clients expect). */
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
const E164 = /^\+[1-9][0-9]{1,14}$/;
/** An authserv-id: a host name (RFC 8601 section 2.5). */
const AUTHSERV_ID = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Checks a pair of variables that turn a channel on together. Records a problem naming the
 * missing one when only one is set; returns whether both are set.
 */
function pairSet(reader: EnvReader, a: EnvVariable, b: EnvVariable, channel: string): boolean {
  const hasA = reader.get(a) !== undefined;
  const hasB = reader.get(b) !== undefined;
  if (hasA !== hasB) {
    const [missing, present] = hasA ? [b, a] : [a, b];
    reader.fail(missing, `is required when ${present} is set (set both to turn the ${channel} channel on, or neither).`);
  }
  return hasA && hasB;
}

/** Records a problem for a variable that only matters when its channel is on. */
function orphan(reader: EnvReader, name: EnvVariable, channel: string, switches: string): void {
  if (reader.get(name) !== undefined) {
    reader.fail(name, `is set but the ${channel} channel is off; set ${switches} too, or unset ${name}.`);
  }
}

/** The email channel from `IMAP_URL`, `SMTP_URL` and `EMAIL_FROM`; `undefined` when off or invalid. */
export function parseEmail(reader: EnvReader): EmailEnv | undefined {
  const on = pairSet(reader, 'IMAP_URL', 'SMTP_URL', 'email');
  const imapValue = reader.get('IMAP_URL');
  const smtpValue = reader.get('SMTP_URL');
  const imap = imapValue === undefined ? undefined : parseImapUrl(reader, 'IMAP_URL', imapValue);
  const smtp = smtpValue === undefined ? undefined : parseSmtpUrl(reader, 'SMTP_URL', smtpValue);
  const fromValue = reader.get('EMAIL_FROM');
  const from = fromValue === undefined ? undefined : parseFrom(fromValue);
  if (fromValue !== undefined && from === undefined) {
    reader.fail(
      'EMAIL_FROM',
      `must be an address like bot@example.com or Concierge <bot@example.com>${reader.got('EMAIL_FROM', fromValue)}.`,
    );
  }
  const trustedAuthservId = reader.get('EMAIL_TRUSTED_AUTHSERV_ID');
  if (trustedAuthservId !== undefined && !AUTHSERV_ID.test(trustedAuthservId)) {
    reader.fail('EMAIL_TRUSTED_AUTHSERV_ID', `must be a host name like mx.example.com${reader.got('EMAIL_TRUSTED_AUTHSERV_ID', trustedAuthservId)}.`);
  }
  if (!on && imapValue === undefined && smtpValue === undefined) {
    orphan(reader, 'EMAIL_FROM', 'email', 'IMAP_URL and SMTP_URL');
    orphan(reader, 'EMAIL_TRUSTED_AUTHSERV_ID', 'email', 'IMAP_URL and SMTP_URL');
  }
  if (!on || imap === undefined || smtp === undefined) return undefined;
  const auth = { trustedAuthservId: trustedAuthservId !== undefined && AUTHSERV_ID.test(trustedAuthservId) ? trustedAuthservId.toLowerCase() : undefined };
  if (fromValue !== undefined) return from === undefined ? undefined : { imap, smtp, from: from.from, fromAddress: from.address, ...auth };
  const fromUser = parseFrom(imap.user);
  if (fromUser === undefined) {
    reader.fail('EMAIL_FROM', 'is required because the IMAP user name is not an email address.');
    return undefined;
  }
  return { imap, smtp, from: fromUser.from, fromAddress: fromUser.address, ...auth };
}

/** The SMS channel from the `TWILIO_*` variables; `undefined` when off or invalid. */
export function parseSms(reader: EnvReader): SmsEnv | undefined {
  const on = pairSet(reader, 'TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'SMS');
  const accountSid = reader.get('TWILIO_ACCOUNT_SID');
  if (accountSid !== undefined && !ACCOUNT_SID.test(accountSid)) {
    reader.fail('TWILIO_ACCOUNT_SID', `must be "AC" followed by 32 hex digits${reader.got('TWILIO_ACCOUNT_SID', accountSid)}.`);
  }
  const from = reader.get('TWILIO_SMS_FROM');
  if (from !== undefined && !E164.test(from) && !MESSAGING_SERVICE_SID.test(from)) {
    reader.fail(
      'TWILIO_SMS_FROM',
      'must be an E.164 number like +15550100 or a Messaging Service SID ("MG" and 32 hex digits)' +
        `${reader.got('TWILIO_SMS_FROM', from)}.`,
    );
  }
  const apiUrlValue = reader.get('TWILIO_API_URL');
  const apiUrl = apiUrlValue === undefined ? DEFAULT_TWILIO_API_URL : parseHttpUrl(reader, 'TWILIO_API_URL', apiUrlValue, 'strip');
  if (!on) {
    if (accountSid === undefined && reader.get('TWILIO_AUTH_TOKEN') === undefined) {
      orphan(reader, 'TWILIO_SMS_FROM', 'SMS', 'TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
    }
    return undefined;
  }
  const authToken = reader.get('TWILIO_AUTH_TOKEN');
  if (accountSid === undefined || authToken === undefined || apiUrl === undefined) return undefined;
  if (!ACCOUNT_SID.test(accountSid)) return undefined;
  return { accountSid, authToken, from, apiUrl };
}

/** The Slack channel from the `SLACK_*` variables; `undefined` when off or invalid. */
export function parseSlack(reader: EnvReader): SlackEnv | undefined {
  const on = pairSet(reader, 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'Slack');
  const botToken = reader.get('SLACK_BOT_TOKEN');
  const botOk = botToken === undefined || botToken.startsWith('xoxb-');
  if (!botOk) reader.fail('SLACK_BOT_TOKEN', 'must be a bot token starting with "xoxb-".');
  const appToken = reader.get('SLACK_APP_TOKEN');
  const appOk = appToken === undefined || appToken.startsWith('xapp-');
  if (!appOk) reader.fail('SLACK_APP_TOKEN', 'must be an app-level token starting with "xapp-".');
  const apiUrlValue = reader.get('SLACK_API_URL');
  const apiUrl = apiUrlValue === undefined ? DEFAULT_SLACK_API_URL : parseHttpUrl(reader, 'SLACK_API_URL', apiUrlValue, 'require');
  if (!on) {
    if (botToken === undefined && reader.get('SLACK_SIGNING_SECRET') === undefined) {
      orphan(reader, 'SLACK_APP_TOKEN', 'Slack', 'SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET');
    }
    return undefined;
  }
  const signingSecret = reader.get('SLACK_SIGNING_SECRET');
  if (botToken === undefined || signingSecret === undefined || apiUrl === undefined || !botOk || !appOk) return undefined;
  return { botToken, signingSecret, appToken, apiUrl };
}
