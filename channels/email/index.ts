/**
 * The email channel: IMAP in (one IDLE listener per mailbox across every process), SMTP out
 * through the outbound queue, threads kept with our own Message-IDs, approvals by reply with
 * sender authentication. On when `IMAP_URL` and `SMTP_URL` are set.
 */
import type { ChannelModule } from '../channel.ts';
import type { EmailChannelOptions } from './options.ts';

export type { EmailChannelOptions } from './options.ts';

/**
 * The email channel module. `channels/registry.ts` registers {@link emailChannel}; tests create
 * one with a local DNS resolver.
 */
export function createEmailChannel(options: EmailChannelOptions = {}): ChannelModule {
  return {
    id: 'email',
    envVariables: ['IMAP_URL', 'SMTP_URL', 'EMAIL_FROM', 'EMAIL_TRUSTED_AUTHSERV_ID'],
    enabled: (env) => env.email !== undefined,
    // The adaptor and its libraries load only when the channel is on (see channels/registry.ts).
    create: async (context) => (await import('./adaptor.ts')).createEmailAdaptor(context, options),
    doctor: async (env) => (await import('./doctor.ts')).emailDoctor(env.email),
  };
}

/** The email channel as registered. */
export const emailChannel: ChannelModule = createEmailChannel();
