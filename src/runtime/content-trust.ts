/**
 * What counts as trusted text. Channels set an injection's `content` with the helpers here, and the
 * runtime reads it back through {@link contentOf}, which applies the rules that no channel can
 * override:
 *
 * - quoted mail, attachments, webhooks and peers' messages are never trusted;
 * - a sender the channel could not verify, or another agent, is never trusted;
 * - a typed chat message (web, Slack, SMS, WhatsApp) or a pressed control is trusted when its
 *   sender is verified: it is that person's own request (not the operator's instructions);
 * - a mail body is trusted only when DKIM/DMARC verified it and its sender is a known person
 *   (`people` in `switchboard.yaml`): anyone can write to a mailbox, and mail carries what others
 *   wrote (forwards, newsletters, automatic mail);
 * - a schedule's prompt is the operator's own words.
 *
 * Untrusted text reaches the model marked as data (see `actor/untrusted-content.ts`), and a turn
 * that read any asks for approval where a policy would have let a call run (docs/approvals.md).
 */
import type { ContentProvenance, ContentSource, Injection, Sender } from './injection.ts';

/** Sources whose text is outside content whatever the channel says. */
const NEVER_TRUSTED: ReadonlySet<ContentSource> = new Set<ContentSource>(['email-quoted', 'attachment', 'webhook', 'peer']);

/** Every {@link ContentSource}. */
export const CONTENT_SOURCES: readonly ContentSource[] = ['typed', 'email-body', 'email-quoted', 'attachment', 'webhook', 'peer', 'ui-action', 'schedule'];

/** A chat message the sender typed: trusted when the channel verified the sender (and it is not an agent). */
export function typedContent(sender: Pick<Sender, 'verified' | 'agent'>): ContentProvenance {
  return { source: 'typed', trusted: sender.verified && sender.agent !== true };
}

/** A control the sender pressed (a surface's Button, an approval button): trusted as {@link typedContent}. */
export function actionContent(sender: Pick<Sender, 'verified' | 'agent'>): ContentProvenance {
  return { source: 'ui-action', trusted: sender.verified && sender.agent !== true };
}

/** The visible text of a mail: trusted only when the sender is verified (DKIM/DMARC) and a known person. */
export function mailBodyContent(sender: Pick<Sender, 'verified' | 'personId' | 'agent'>): ContentProvenance {
  return { source: 'email-body', trusted: sender.verified && sender.personId !== undefined && sender.agent !== true };
}

/** Outside content by nature (`webhook`, `peer`, `attachment`, `email-quoted`): never trusted. */
export function outsideContent(source: ContentSource): ContentProvenance {
  return { source, trusted: false };
}

/** What an injection whose channel did not set `content` is taken for: a peer's message, a pressed control, or typed text. */
function defaultContent(injection: Pick<Injection, 'kind' | 'sender'>): ContentProvenance {
  if (injection.sender.agent === true) return outsideContent('peer');
  return injection.kind === 'user-action' ? actionContent(injection.sender) : typedContent(injection.sender);
}

/**
 * The provenance the runtime acts on: the injection's own `content` (unset: `peer` for an agent,
 * `ui-action` for a pressed control, else `typed`), trusted only when the channel said so, the
 * sender is verified and not an agent, and the source is not one that is never trusted.
 */
export function contentOf(injection: Pick<Injection, 'kind' | 'content' | 'sender'>): ContentProvenance {
  const { sender } = injection;
  const said = injection.content ?? defaultContent(injection);
  const trusted = said.trusted && sender.verified && sender.agent !== true && !NEVER_TRUSTED.has(said.source);
  return trusted === said.trusted ? said : { source: said.source, trusted };
}

const SOURCE_WORDS: Readonly<Record<ContentSource, string>> = {
  'typed': 'a message from an unverified sender',
  'email-body': 'email body',
  'email-quoted': 'quoted email',
  'attachment': 'attachment',
  'webhook': 'webhook payload',
  'peer': 'message from another agent',
  'ui-action': 'a button press from an unverified sender',
  'schedule': 'schedule prompt',
};

/** The source of untrusted text in words, for approval reasons: `email body`, `webhook payload`. */
export function sourceInWords(source: ContentSource): string {
  return SOURCE_WORDS[source];
}
