/**
 * The SMS channel through Twilio: signed webhooks in, the REST API out through the outbound queue,
 * carrier keywords (STOP, START, HELP) honoured, segment-aware plain text, MMS media, approvals by
 * code. Twilio's `whatsapp:+…` addresses are served by the same adaptor. On when
 * `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN` are set.
 */
import type { ChannelModule } from '../channel.ts';

/** The SMS channel module. */
export const smsChannel: ChannelModule = {
  id: 'sms',
  envVariables: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_SMS_FROM', 'TWILIO_API_URL'],
  enabled: (env) => env.sms !== undefined,
  // The adaptor and its SDK load only when the channel is on (see channels/registry.ts).
  create: async (context) => (await import('./adaptor.ts')).createSmsAdaptor(context),
  doctor: async (env) => (await import('./doctor.ts')).smsDoctor(env.sms),
};
