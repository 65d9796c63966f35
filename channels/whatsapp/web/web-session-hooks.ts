/**
 * What one client's events do while this process holds the session: the link state for each
 * stage (the QR code also drawn in the terminal), and once ready the outbox served and the
 * messages that came while offline caught up; each message read and handed to the intake.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ArtifactStore } from '../../../src/runtime/artifacts/artifact-store.ts';
import type { ListenerFence } from '../../channel.ts';
import { fencedSet } from '../../kit/lease/fenced-write.ts';
import type { WhatsAppIntake } from '../whatsapp-event.ts';
import { unreadSince } from './catch-up.ts';
import type { LinkStateUpdate } from './link-state.ts';
import { printQrCode } from './qr-terminal.ts';
import { readWebMessage, type WebGroupPolicy } from './read-web-message.ts';
import type { WebClientHooks } from './run-web-client.ts';
import { takeWithRetry, type TakeRetry } from './take-with-retry.ts';
import type { WebMessage, WhatsAppWebClient } from './web-client.ts';
import { webKeys } from './web-keys.ts';
import { startWebOutbox, type RunningOutbox } from './web-outbox.ts';

/** Options of {@link createSessionHooks}. */
export interface SessionHooksOptions {
  readonly client: WhatsAppWebClient;
  readonly fence: ListenerFence;
  /** Aborted on stop or when the lease is lost. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Records a link state (throws only when the lease is lost). */
  readonly link: (update: LinkStateUpdate) => Promise<void>;
  readonly redis: Redis;
  readonly prefix: string;
  readonly intake: WhatsAppIntake;
  readonly artifacts: ArtifactStore;
  readonly groups: WebGroupPolicy;
  readonly clock: () => Date;
  readonly maxMediaBytes: number;
  readonly takeRetry?: TakeRetry;
  readonly printQr?: (qr: string) => Promise<void>;
  /** Called when a QR code is shown: a kept session that WhatsApp asks to replace is stale. Default: nothing. */
  readonly onQrShown?: () => Promise<void>;
}

/** The hooks, and what the listener reads back once the client ended. */
export interface SessionHooks extends WebClientHooks {
  /** The linked number, E.164, once ready. */
  readonly number: string | undefined;
  /** How long the session has been (or was) ready, in ms; 0 when it never was. */
  readyForMs(): number;
  /** Stops the outbox; call once the client ended. */
  end(): Promise<void>;
}

/** Messages older than this are never caught up, in ms (a day). */
const CATCH_UP_LIMIT_MS = 86_400_000;
/** Catch-up starts this long before the session was last ready, in ms, for clocks that differ. */
const CATCH_UP_SLACK_MS = 60_000;

/** Every id the linked account goes by: its number's id and, when WhatsApp says, its hidden-number id. */
async function botIdsOf(client: WhatsAppWebClient): Promise<Set<string>> {
  const wid = client.info?.wid._serialized;
  if (wid === undefined) return new Set();
  const ids = new Set([wid]);
  const found = await client.getContactLidAndPhone([wid]).catch(() => []);
  for (const { lid } of found) if (typeof lid === 'string' && lid !== '') ids.add(lid);
  return ids;
}

/** Creates the hooks of one client. */
export function createSessionHooks(options: SessionHooksOptions): SessionHooks {
  const { client, logger, link, redis } = options;
  const keys = webKeys(options.prefix);
  let number: string | undefined;
  let botIds = new Set<string>();
  let readyAt: number | undefined;
  let outbox: RunningOutbox | undefined;

  const take = async (message: WebMessage): Promise<void> => {
    if (botIds.size === 0) botIds = await botIdsOf(client);
    const read = await readWebMessage(message, { client, botIds, groups: options.groups, artifacts: options.artifacts, maxMediaBytes: options.maxMediaBytes, clock: options.clock });
    if ('skipped' in read) {
      logger.debug({ messageId: message.id._serialized, reason: read.skipped }, 'whatsapp: message skipped');
      return;
    }
    await takeWithRetry(options.intake, read.event, { signal: options.signal, logger, ...(options.takeRetry === undefined ? {} : { retry: options.takeRetry }) });
  };

  /** Takes the unread messages since the session was last ready; none on a first link. */
  const catchUp = async (previous: string | null): Promise<void> => {
    if (previous === null) return;
    const sinceMs = Math.max(Date.parse(previous) - CATCH_UP_SLACK_MS, options.clock().getTime() - CATCH_UP_LIMIT_MS);
    const messages = await unreadSince(client, { sinceMs });
    logger.info({ messages: messages.length, since: new Date(sinceMs).toISOString() }, 'whatsapp: catching up on messages that came while offline');
    for (const message of messages) await take(message);
  };

  return {
    get number() {
      return number;
    },
    readyForMs: () => (readyAt === undefined ? 0 : Date.now() - readyAt),
    async onQr(qr) {
      await link({ status: 'waiting-for-qr', qr, ...(number === undefined ? {} : { number }) });
      await options.onQrShown?.();
      await (options.printQr ?? printQrCode)(qr).catch((error: unknown) => { logger.warn({ err: error }, 'whatsapp: QR code not drawn'); });
    },
    async onAuthenticated() {
      await link({ status: 'authenticated' });
    },
    async onReady() {
      const user = client.info?.wid.user;
      number = user === undefined ? undefined : `+${user}`;
      botIds = await botIdsOf(client);
      readyAt = Date.now();
      await link({ status: 'ready', ...(number === undefined ? {} : { number }) });
      logger.info({ number }, 'whatsapp: WhatsApp Web session ready');
      outbox ??= startWebOutbox({ redis, prefix: options.prefix, client, artifacts: options.artifacts, signal: options.signal, logger });
      const previous = await redis.get(keys.readyAt);
      await fencedSet(redis, { ...options.fence, key: keys.readyAt, value: options.clock().toISOString() });
      await catchUp(previous);
    },
    onMessage: take,
    async end() {
      await outbox?.stop();
      outbox = undefined;
    },
  };
}
