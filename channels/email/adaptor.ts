/**
 * The email adaptor: the IMAP listener and mail intake, the SMTP transport, the renderer and the
 * sender. `index.ts` loads this file (and with it imapflow, mailparser, nodemailer and mailauth)
 * only when the channel is on.
 */
import type { ChannelAdaptor, ChannelContext } from '../channel.ts';
import { keptSecret } from '../kit/kept-secret.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { EmailEnv } from '../../src/config/env-types.ts';
import { emailApprovals } from './approvals.ts';
import { createEmailStore } from './email-store.ts';
import { createEmailListener, mailboxKey } from './inbound.ts';
import { createMailIntake } from './intake.ts';
import { createMessageIds } from './message-ids.ts';
import { normaliseEmailEvent } from './normalise.ts';
import { createEmailRender } from './render.ts';
import { createEmailSender } from './send.ts';
import { createSmtpTransport } from './smtp-transport.ts';
import type { EmailChannelOptions } from './options.ts';

function emailEnvOf(context: ChannelContext): EmailEnv {
  const { email } = context.env;
  if (email === undefined) throw new SwitchboardError('config.invalid', 'The email channel needs IMAP_URL and SMTP_URL.');
  return email;
}

/** Creates the email adaptor from the environment and the service's context. */
export async function createEmailAdaptor(context: ChannelContext, options: EmailChannelOptions): Promise<ChannelAdaptor> {
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
