/**
 * Every channel switchboard knows, one line each. The service creates those whose
 * {@link ChannelModule.enabled} says the environment turns them on, and wires each the same way.
 * A module is light: it loads its adaptor, and with it the channel's SDKs, only when it is created,
 * so a process pays in memory and start time only for the channels it runs.
 */
import { a2aChannel } from './a2a/index.ts';
import type { ChannelModule } from './channel.ts';
import { emailChannel } from './email/index.ts';
import { slackChannel } from './slack/index.ts';
import { smsChannel } from './sms/index.ts';
import { webChannel } from './web/index.ts';
import { whatsappChannel } from './whatsapp/index.ts';

/** The registered channels, in the order their routes are mounted and their checks printed. */
export const CHANNEL_MODULES: readonly ChannelModule[] = [webChannel, emailChannel, smsChannel, slackChannel, whatsappChannel, a2aChannel];
