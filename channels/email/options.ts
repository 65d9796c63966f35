/** What a test or an embedding program may change in the email channel; see `index.ts`. */
import type { WatchMailboxOptions } from './imap-watch.ts';
import type { MailIntakeOptions } from './intake.ts';
import type { SenderAuthOptions } from './sender-auth.ts';

/** Options of `createEmailChannel`; the defaults are right for production. */
export interface EmailChannelOptions {
  /** DNS lookups of DKIM keys and DMARC records. Default the system resolver. */
  readonly resolver?: SenderAuthOptions['resolver'];
  /** IMAP watcher settings (IDLE restart, message size cap, reconnect backoff). */
  readonly watch?: Pick<WatchMailboxOptions, 'maxIdleTimeMs' | 'maxMessageBytes' | 'backoff'>;
  /** Per-sender cap. Default 30 mails per hour. */
  readonly rateCap?: MailIntakeOptions['rateCap'];
}
