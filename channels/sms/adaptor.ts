/**
 * The SMS adaptor: Twilio's REST client, the signed webhook routes, the renderer and the sender.
 * `index.ts` loads this file (and with it the Twilio SDK) only when the channel is on.
 */
import type { ChannelAdaptor, ChannelContext } from '../channel.ts';
import { SwitchboardError } from '../../src/protocol/errors.ts';
import type { SmsEnv } from '../../src/config/env-types.ts';
import { smsApprovals } from './approvals.ts';
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

/** Creates the SMS adaptor from the environment and the service's context. */
export function createSmsAdaptor(context: ChannelContext): ChannelAdaptor {
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
      ...(context.reportDeliveryStatus === undefined ? {} : { onStatus: (report) => context.reportDeliveryStatus?.(report) ?? Promise.resolve() }),
    }),
    normalise,
    render: createSmsRender({ clock: context.clock, ...maxSegmentsOf(context) }),
    sender: createSmsSender({ client, from: sms.from, store, artifactUrl: (artifactId) => context.artifactUrl(artifactId), statusCallback: `${context.env.publicUrl}/webhooks/twilio/status` }),
    approvals: smsApprovals(context.env.whatsapp !== undefined),
    close: () => Promise.resolve(),
  };
}
