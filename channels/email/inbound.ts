/**
 * The email channel's listener: one IMAP watcher per mailbox across every process (the kit's
 * lease), each mail taken in by `intake.ts`, the cursor advanced only after the enqueue.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChannelListener } from '../channel.ts';
import type { ImapEnv } from '../../src/config/env-types.ts';
import { watchMailbox, type FetchedMail, type WatchMailboxOptions } from './imap-watch.ts';
import { createMailboxCursor } from './mailbox-cursor.ts';

/** Options of {@link createEmailListener}. */
export interface EmailListenerOptions {
  readonly imap: ImapEnv;
  readonly redis: Redis;
  /** Key prefix of this mailbox's records. */
  readonly keyPrefix: string;
  readonly take: (mail: FetchedMail) => Promise<void>;
  readonly logger: Logger;
  /** Passed to the watcher (IDLE restart, size cap, backoff). */
  readonly watch?: Pick<WatchMailboxOptions, 'maxIdleTimeMs' | 'maxMessageBytes' | 'backoff'>;
}

/** The account a mailbox is watched for: one lease per `user@host:port/mailbox`. */
export function mailboxKey(imap: ImapEnv): string {
  return `${imap.user.toLowerCase()}@${imap.host.toLowerCase()}:${imap.port}/${imap.mailbox}`;
}

/** Creates the singleton IMAP listener. */
export function createEmailListener(options: EmailListenerOptions): ChannelListener {
  const cursor = createMailboxCursor(options.redis, `${options.keyPrefix}:cursor`);
  return {
    singletonKey: mailboxKey(options.imap),
    start(fence) {
      if (fence === undefined) throw new Error('The email listener runs only under its lease.');
      const logger = options.logger.child({ channel: 'email', mailbox: options.imap.mailbox, fence: fence.token });
      return Promise.resolve(watchMailbox({ imap: options.imap, cursor, fence, take: options.take, logger, ...options.watch }));
    },
  };
}
