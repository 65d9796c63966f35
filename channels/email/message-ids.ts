/**
 * The Message-IDs the bot puts on its mail, and how a reply's `In-Reply-To` / `References` are read
 * back. Every id is ours only when its domain is the bot's and its tag verifies under the channel
 * secret, so a forged header cannot point a reply at an approval it was never about.
 *
 * Shapes (all inside `<…>`):
 * - an answer:           `sb.d.<26 base32 chars of HMAC(idempotency key)>@<domain>`
 * - an approval request: `sb.a.<approval id>.<recipient tag>.<mac>@<domain>`
 */
import { hmac, safeEqual } from '../../src/runtime/crypto/signing.ts';
import { isApprovalId } from '../../src/runtime/approvals/approval-id.ts';

/** Options of {@link createMessageIds}. */
export interface MessageIdsConfig {
  /** Key of the HMACs; kept secret so ids cannot be forged. */
  readonly secret: string;
  /** The right-hand side of every id: the domain of the bot's address (`EMAIL_FROM`). */
  readonly domain: string;
}

/** What one of our Message-IDs was made for. */
export type OurMessageId =
  | { readonly kind: 'delivery' }
  | { readonly kind: 'approval'; readonly approvalId: string };

/** Makes and reads the bot's Message-IDs. */
export interface MessageIds {
  /** The domain ids are made under, lower-case. */
  readonly domain: string;
  /** The id of an answer mail: the same for the same idempotency key, so a resend keeps it. */
  forDelivery(idempotencyKey: string): string;
  /** The id of the approval request mail for `approvalId` sent to `recipient`. */
  forApproval(approvalId: string, recipient: string): string;
  /** What `messageId` (with or without `<>`) was made for, or `undefined` when it is not a valid id of ours. */
  read(messageId: string): OurMessageId | undefined;
}

const MAC_CHARS = 16;
const TAG_CHARS = 8;

function bare(messageId: string): string {
  return messageId.trim().replace(/^<|>$/g, '');
}

/** Lower-case base32-ish characters of an HMAC (letters and digits only). */
function token(secret: string, text: string, length: number): string {
  return hmac(secret, text).replace(/[-_]/g, '').toLowerCase().slice(0, length);
}

/**
 * Creates the Message-ID helpers.
 *
 * @example
 * const ids = createMessageIds({ secret, domain: 'example.com' });
 * ids.forApproval(record.approvalId, 'grace@example.com'); // '<sb.a.3xY…Q.k2m9…@example.com>'
 * ids.read(inReplyTo); // { kind: 'approval', approvalId: '3xY…Q' }
 */
export function createMessageIds(config: MessageIdsConfig): MessageIds {
  const domain = config.domain.toLowerCase();
  const approvalMac = (approvalId: string, tag: string): string => token(config.secret, `approval\u0000${approvalId}\u0000${tag}`, MAC_CHARS);
  return {
    domain,
    forDelivery: (idempotencyKey) => `<sb.d.${token(config.secret, `delivery\u0000${idempotencyKey}`, 26)}@${domain}>`,
    forApproval(approvalId, recipient) {
      const tag = token(config.secret, `recipient\u0000${recipient.toLowerCase()}`, TAG_CHARS);
      return `<sb.a.${approvalId}.${tag}.${approvalMac(approvalId, tag)}@${domain}>`;
    },
    read(messageId) {
      const id = bare(messageId);
      const at = id.lastIndexOf('@');
      if (at < 0 || id.slice(at + 1).toLowerCase() !== domain) return undefined;
      const local = id.slice(0, at);
      if (/^sb\.d\.[a-z0-9]{26}$/.test(local)) return { kind: 'delivery' };
      const approval = /^sb\.a\.([A-Za-z0-9_-]{22})\.([a-z0-9]+)\.([a-z0-9]+)$/.exec(local);
      if (approval === null) return undefined;
      const [, approvalId = '', tag = '', mac = ''] = approval;
      if (!isApprovalId(approvalId) || !safeEqual(mac, approvalMac(approvalId, tag))) return undefined;
      return { kind: 'approval', approvalId };
    },
  };
}

/**
 * The Message-IDs in an `In-Reply-To` or `References` header value, in order, each with its `<>`.
 * Tolerates folding, commas and text outside the brackets (old clients).
 */
export function messageIdsIn(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = typeof value === 'string' ? value : value.join(' ');
  return [...text.matchAll(/<([^<>\s]+)>/g)].map((match) => `<${match[1] ?? ''}>`);
}
