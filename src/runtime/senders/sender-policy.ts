/**
 * Who may start a conversation on a channel: the policy of each channel (its mode from
 * `switchboard.yaml`, or the channel's default) and the pure part of deciding about one sender.
 * What needs Redis (approved and blocked senders, pairing codes) is in `sender-store.ts`.
 */
import { CHANNEL_NAMES, type ChannelName, type RefusalMode, type SenderMode, type SendersConfig } from '../app/app-types.ts';
import type { Sender } from '../injection.ts';
import { compileAllowList } from './allow-patterns.ts';

/**
 * The mode of a channel whose `senders` is not set. The web chat and Slack are open: a web visitor
 * is an anonymous browser on a public page, and a Slack member was admitted to the workspace by its
 * admins. SMS, email and WhatsApp reach anyone who has the number or address, so a stranger must
 * be paired first. WhatsApp in `web` mode is the exception: see {@link defaultSenderMode}.
 */
export const DEFAULT_SENDER_MODES: Readonly<Record<ChannelName, SenderMode>> = {
  web: 'open',
  slack: 'open',
  email: 'pairing',
  sms: 'pairing',
  whatsapp: 'pairing',
};

/** What the defaults depend on besides the channel. */
export interface SenderDefaultsContext {
  /** `WHATSAPP_MODE`, when WhatsApp is configured. */
  readonly whatsappMode?: 'web' | 'cloud';
}

/**
 * Whether an unlisted sender of an allowlist on `channel` is told so when `switchboard.yaml` does
 * not say: once a day, except on WhatsApp in `web` mode, whose number is a person's own: their
 * contacts must not get an automatic refusal from it.
 */
export function defaultRefusal(channel: ChannelName, context: SenderDefaultsContext = {}): RefusalMode {
  return channel === 'whatsapp' && context.whatsappMode === 'web' ? 'never' : 'daily';
}

/**
 * The default mode of `channel`: {@link DEFAULT_SENDER_MODES}, except WhatsApp in `web` mode
 * (the bot is a linked device of someone's own number), which is `allowlist`: known people and
 * approved senders only, never the whole address book of that number.
 */
export function defaultSenderMode(channel: ChannelName, context: SenderDefaultsContext = {}): SenderMode {
  if (channel === 'whatsapp' && context.whatsappMode === 'web') return 'allowlist';
  return DEFAULT_SENDER_MODES[channel];
}

/** A channel's policy with its mode settled. */
export interface SenderPolicy {
  readonly channel: ChannelName;
  readonly mode: SenderMode;
  /** `true` when {@link mode} is the channel's default (`switchboard.yaml` sets none). */
  readonly defaulted: boolean;
  /** The `allow:` entries, checked. */
  readonly allow: readonly string[];
  /** Whether an unlisted sender of an `allowlist` channel gets one refusal a day. */
  readonly refusal: RefusalMode;
}

const NO_SETTING: SendersConfig = { allow: [] };

/**
 * Every channel's policy: what `senders` (the loaded app's) sets, the defaults for the rest.
 *
 * @example
 * const policies = senderPolicies(app.senders, { whatsappMode: env.whatsapp?.mode });
 * policies.sms.mode; // 'pairing' unless switchboard.yaml says otherwise
 */
export function senderPolicies(
  senders: Readonly<Record<ChannelName, SendersConfig>> | undefined,
  context: SenderDefaultsContext = {},
): Record<ChannelName, SenderPolicy> {
  const policies = {} as Record<ChannelName, SenderPolicy>;
  for (const channel of CHANNEL_NAMES) {
    const setting = senders?.[channel] ?? NO_SETTING;
    policies[channel] = {
      channel,
      mode: setting.mode ?? defaultSenderMode(channel, context),
      defaulted: setting.mode === undefined,
      allow: setting.allow,
      refusal: setting.refusal ?? defaultRefusal(channel, context),
    };
  }
  return policies;
}

/** One line about a policy, for `switchboard doctor` and the operator page. */
export function describeSenderPolicy(policy: SenderPolicy): string {
  const mode = policy.defaulted ? `${policy.mode} (the channel's default)` : policy.mode;
  if (policy.mode === 'open') return `${mode}: anyone may write`;
  const allow = `${String(policy.allow.length)} allow ${policy.allow.length === 1 ? 'entry' : 'entries'}`;
  const others = policy.mode === 'pairing' ? 'others get a pairing code' : policy.refusal === 'daily' ? 'others get one refusal a day' : 'others get no answer';
  return `${mode}: known people, approved senders, ${allow}; ${others}`;
}

/** A policy ready to be asked about senders. */
export interface CompiledSenderPolicy extends SenderPolicy {
  /** Whether `sender` is let in without asking the store: a known person, or an `allow:` entry. */
  listed(sender: Sender): boolean;
}

/** Compiles the `allow:` entries of `policy` once. */
export function compileSenderPolicy(policy: SenderPolicy): CompiledSenderPolicy {
  const allowed = compileAllowList(policy.channel, policy.allow);
  return { ...policy, listed: (sender) => sender.personId !== undefined || allowed(sender.id) };
}
