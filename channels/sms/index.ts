/**
 * The SMS channel through Twilio: signed webhooks in, the REST API out through the outbound queue,
 * carrier keywords (STOP, START, HELP) honoured, segment-aware plain text, MMS media, approvals by
 * code. Twilio's `whatsapp:+…` addresses are served by the same adaptor. On when
 * `TWILIO_ACCOUNT_SID` and `TWILIO_AUTH_TOKEN` are set.
 */
import type { ChannelAdaptor, ChannelContext, ChannelModule } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { SmsEnv } from '../../src/config/env-types.ts';
import { smsApprovals } from './approvals.ts';
import { smsDoctor } from './doctor.ts';
import { createSmsRoutes } from './inbound.ts';
import { normaliseSmsEvent } from './normalise.ts';
import { createSmsRender } from './render.ts';
import { createSmsSender } from './send.ts';
import { createSmsStore } from './sms-store.ts';
import { createTwilioClient } from './twilio-client.ts';

function smsEnvOf(context: ChannelContext): SmsEnv {
  const { sms } = context.env;
  if (sms === undefined) throw new SwitchboardError('config.invalid', 'The SMS channel needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN.');
  return sms;
}

/** The answer cap of `channels: { sms: { maxSegments } }` in switchboard.yaml, when set. */
function maxSegmentsOf(context: ChannelContext): { maxSegments?: number } {
  const maxSegments = context.app.channels.sms.maxSegments;
  return maxSegments === undefined ? {} : { maxSegments };
}

function helpText(context: ChannelContext): string {
  return `${context.app.name}: text your question and an assistant answers. Approvals: reply APPROVE or DENY with the code. Reply STOP to stop messages.`;
}

function createAdaptor(context: ChannelContext): ChannelAdaptor {
  const sms = smsEnvOf(context);
  const client = createTwilioClient(sms);
  const store = createSmsStore({ redis: context.redis, prefix: `${context.prefix}:sms:${sms.accountSid}` });
  const normalise = (event: unknown) => normaliseSmsEvent(event, { people: context.app.people, tenantId: context.tenantId });
  const check = { authToken: sms.authToken, accountSid: sms.accountSid, publicUrl: context.env.publicUrl };
  return {
    id: 'sms',
    transport: 'buffered',
    outbound: 'queue',
    routes: createSmsRoutes({
      check,
      ...(sms.from?.startsWith('+') === true ? { ourNumber: sms.from } : {}),
      store,
      media: { accountSid: sms.accountSid, authToken: sms.authToken, apiUrl: sms.apiUrl, artifacts: context.artifacts },
      normalise,
      enqueue: (injection) => context.enqueue(injection),
      helpText: helpText(context),
      logger: context.logger,
      clock: context.clock,
    }),
    normalise,
    render: createSmsRender({ clock: context.clock, ...maxSegmentsOf(context) }),
    sender: createSmsSender({ client, from: sms.from, store, artifactUrl: (artifactId) => context.artifactUrl(artifactId), statusCallback: `${context.env.publicUrl}/webhooks/twilio/status` }),
    approvals: smsApprovals(context.env.whatsapp !== undefined),
    close: () => Promise.resolve(),
  };
}

/** The SMS channel module. */
export const smsChannel: ChannelModule = {
  id: 'sms',
  envVariables: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_SMS_FROM', 'TWILIO_API_URL'],
  enabled: (env) => env.sms !== undefined,
  create: (context) => Promise.resolve(createAdaptor(context)),
  doctor: (env) => smsDoctor(env.sms),
};
