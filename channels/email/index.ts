/**
 * The email channel: IMAP in (one IDLE listener per mailbox across every process), SMTP out
 * through the outbound queue, threads kept with our own Message-IDs, approvals by reply with
 * sender authentication. On when `IMAP_URL` and `SMTP_URL` are set.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { keptSecret } from '../kit/kept-secret.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { EmailEnv } from '../../src/config/env-types.ts';
import { emailApprovals } from './approvals.ts';
import { emailDoctor } from './doctor.ts';
import { createEmailStore } from './email-store.ts';
import { createEmailListener, mailboxKey } from './inbound.ts';
import { createMailIntake, type MailIntakeOptions } from './intake.ts';
import type { WatchMailboxOptions } from './imap-watch.ts';
import { createMessageIds } from './message-ids.ts';
import { normaliseEmailEvent } from './normalise.ts';
import { createEmailRender } from './render.ts';
import { createEmailSender } from './send.ts';
import type { SenderAuthOptions } from './sender-auth.ts';
import { createSmtpTransport } from './smtp-transport.ts';

/** Options of {@link createEmailChannel}; the defaults are right for production. */
export interface EmailChannelOptions {
  /** DNS lookups of DKIM keys and DMARC records. Default the system resolver. */
  readonly resolver?: SenderAuthOptions['resolver'];
  /** IMAP watcher settings (IDLE restart, message size cap, reconnect backoff). */
  readonly watch?: Pick<WatchMailboxOptions, 'maxIdleTimeMs' | 'maxMessageBytes' | 'backoff'>;
  /** Per-sender cap. Default 30 mails per hour. */
  readonly rateCap?: MailIntakeOptions['rateCap'];
}

function emailEnvOf(context: ChannelContext): EmailEnv {
  const { email } = context.env;
  if (email === undefined) throw new SwitchboardError('config.invalid', 'The email channel needs IMAP_URL and SMTP_URL.');
  return email;
}

async function createAdaptor(context: ChannelContext, options: EmailChannelOptions): Promise<ChannelAdaptor> {
  const email = emailEnvOf(context);
  const secret = await keptSecret({ redis: context.redis, prefix: context.prefix, purpose: 'email:secret:message-ids' });
  const messageIds = createMessageIds({ secret, domain: email.fromAddress.slice(email.fromAddress.lastIndexOf('@') + 1) });
  const keyPrefix = `${context.prefix}:email:${mailboxKey(email.imap)}`;
  const store = createEmailStore({ redis: context.redis, prefix: keyPrefix });
  const botAddress = email.fromAddress.toLowerCase();
  const normalise = (event: unknown) => normaliseEmailEvent(event, { people: context.app.people, tenantId: context.tenantId, botAddress });
  const transport = createSmtpTransport(email.smtp);
  const take = createMailIntake({
    store,
    artifacts: context.artifacts,
    approvals: context.approvals,
    messageIds,
    botAddress,
    auth: { ...(email.trustedAuthservId === undefined ? {} : { trustedAuthservId: email.trustedAuthservId }), ...(options.resolver === undefined ? {} : { resolver: options.resolver }) },
    normalise,
    enqueue: (injection) => context.enqueue(injection),
    logger: context.logger,
    ...(options.rateCap === undefined ? {} : { rateCap: options.rateCap }),
    clock: context.clock,
  });
  return {
    id: 'email',
    transport: 'buffered',
    outbound: 'queue',
    routes: [],
    listener: createEmailListener({ imap: email.imap, redis: context.redis, keyPrefix, take, logger: context.logger, ...(options.watch === undefined ? {} : { watch: options.watch }) }),
    normalise,
    render: createEmailRender({ from: email.from, fromAddress: email.fromAddress, messageIds, clock: context.clock }),
    sender: createEmailSender({
      transport,
      from: email.from,
      messageIds,
      artifacts: context.artifacts,
      onSent: ({ messageId, destination }) => store.rememberThread(messageId, destination.thread?.['conversation'] ?? destination.address),
    }),
    approvals: emailApprovals,
    close: () => { transport.close(); return Promise.resolve(); },
  };
}

/**
 * The email channel module. `channels/registry.ts` registers {@link emailChannel}; tests create
 * one with a local DNS resolver.
 */
export function createEmailChannel(options: EmailChannelOptions = {}): ChannelModule {
  return {
    id: 'email',
    envVariables: ['IMAP_URL', 'SMTP_URL', 'EMAIL_FROM', 'EMAIL_TRUSTED_AUTHSERV_ID'],
    enabled: (env) => env.email !== undefined,
    create: (context) => createAdaptor(context, options),
    doctor: (env) => emailDoctor(env.email),
  };
}

/** The email channel as registered. */
export const emailChannel: ChannelModule = createEmailChannel();
