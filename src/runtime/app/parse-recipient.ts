/** Reads the `to` of a schedule: a person id, or `<channel>:<address>`. */
import { E164_PATTERN, PERSON_ID_PATTERN } from './app-schemas.ts';
import { RECIPIENT_CHANNELS, type Recipient, type RecipientChannel } from './app-types.ts';

/** What {@link parseRecipient} found: the recipient, or why `to` is not one. */
export type ParsedRecipient = { readonly ok: true; readonly recipient: Recipient } | { readonly ok: false; readonly problem: string };

const PERSON_ID = new RegExp(PERSON_ID_PATTERN);
const E164 = new RegExp(E164_PATTERN);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A web chat conversation id, as the web channel accepts them. */
const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const SLACK_ID = /^\S+$/;

interface AddressRule {
  readonly test: RegExp;
  /** What the address must be, completing "is not …". */
  readonly what: string;
}

const ADDRESS_RULES: Readonly<Record<RecipientChannel, AddressRule>> = {
  sms: { test: E164, what: 'an E.164 phone number such as +447700900123' },
  whatsapp: { test: E164, what: 'an E.164 phone number such as +447700900123' },
  email: { test: EMAIL, what: 'an email address' },
  slack: { test: SLACK_ID, what: 'a Slack channel or user id without spaces' },
  web: { test: CONVERSATION_ID, what: 'a web conversation id of 1 to 64 letters, digits, "_" or "-"' },
};

const FORMS = `a person id or "<channel>:<address>" with channel one of ${RECIPIENT_CHANNELS.join(', ')}`;

/**
 * Parses `to`: without `:` it is a person id (not checked against `people` here); otherwise the
 * part before the first `:` is a channel of {@link RECIPIENT_CHANNELS} and the rest that channel's
 * address, checked for its form (E.164 for `sms` and `whatsapp`, an email address, a web
 * conversation id, a Slack id). Email addresses are lower-cased.
 *
 * @example
 * parseRecipient('grace'); // { ok: true, recipient: { personId: 'grace' } }
 * parseRecipient('sms:+15550100'); // { ok: true, recipient: { channel: 'sms', address: '+15550100' } }
 */
export function parseRecipient(to: string): ParsedRecipient {
  const colon = to.indexOf(':');
  if (colon === -1) {
    return PERSON_ID.test(to) ? { ok: true, recipient: { personId: to } } : { ok: false, problem: `"${to}" must be ${FORMS}` };
  }
  const channel = to.slice(0, colon);
  const address = to.slice(colon + 1);
  const rule = (ADDRESS_RULES as Readonly<Record<string, AddressRule | undefined>>)[channel];
  if (rule === undefined) return { ok: false, problem: `"${to}" must be ${FORMS}` };
  if (!rule.test.test(address)) return { ok: false, problem: `"${address}" is not ${rule.what}` };
  return { ok: true, recipient: { channel, address: channel === 'email' ? address.toLowerCase() : address } };
}
