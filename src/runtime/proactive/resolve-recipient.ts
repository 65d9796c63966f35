/**
 * Where a proactive message goes: a schedule's `to` or a `notify` call's person, resolved against
 * the app's people and the channels this service has enabled.
 */
import { RECIPIENT_CHANNELS, type Person, type Recipient } from '../app/app-types.ts';
import type { Destination } from '../injection.ts';

/**
 * The default order a person's channels are tried in: `sms`, `whatsapp`, `email`, `slack`, `web`
 * (the most direct first; the web chat last, as a person reads it only while it is open).
 */
export const DEFAULT_CHANNEL_PREFERENCE: readonly string[] = RECIPIENT_CHANNELS;

/** People's web addresses are written `web:<conversation id>`; a web destination is the id alone. */
const WEB_ADDRESS_PREFIX = 'web:';

/** Options of {@link resolveRecipient}. */
export interface ResolveRecipientOptions {
  /** The app's people. */
  readonly people: readonly Person[];
  /** The channels this service runs (`web`, `email`, ...); no other channel is ever chosen. */
  readonly enabledChannels: readonly string[];
  /**
   * The order a person's channels are tried in; channels left out are never used to reach a
   * person (an explicit address only needs its channel enabled). Default
   * {@link DEFAULT_CHANNEL_PREFERENCE}.
   */
  readonly preference?: readonly string[];
}

/** Why a recipient cannot be reached. */
export type RecipientFailure = 'unknown-person' | 'unreachable' | 'channel-disabled';

/** What {@link resolveRecipient} found. */
export type RecipientResult =
  | {
      readonly ok: true;
      readonly destination: Destination;
      /** The person, when the recipient was one. */
      readonly person?: Person;
    }
  | {
      readonly ok: false;
      readonly failure: RecipientFailure;
      /** One or two sentences, fit for a log line and for a model reading a tool result. */
      readonly message: string;
    };

function addressesOf(person: Person, channel: string): readonly string[] {
  return (person.addresses as Readonly<Record<string, readonly string[] | undefined>>)[channel] ?? [];
}

function destinationFor(channel: string, address: string): Destination {
  const web = channel === 'web' && address.startsWith(WEB_ADDRESS_PREFIX);
  return { channel, address: web ? address.slice(WEB_ADDRESS_PREFIX.length) : address };
}

function listOf(values: readonly string[]): string {
  return values.length === 0 ? '(none)' : values.join(', ');
}

/**
 * Resolves `to` to a {@link Destination}. A person goes to their first address on the first
 * channel of `preference` that is enabled and where they have one (a web address
 * `web:<conversation id>` becomes the conversation id). An explicit address is used as it is,
 * if its channel is enabled. Failures are values, never thrown.
 *
 * @example
 * resolveRecipient({ personId: 'grace' }, { people: app.people, enabledChannels: ['web', 'sms'] });
 * // { ok: true, destination: { channel: 'sms', address: '+15550100' }, person: { id: 'grace', ... } }
 */
export function resolveRecipient(to: Recipient, options: ResolveRecipientOptions): RecipientResult {
  const enabled = new Set(options.enabledChannels);
  if (!('personId' in to)) {
    if (enabled.has(to.channel)) return { ok: true, destination: { channel: to.channel, address: to.address } };
    return {
      ok: false,
      failure: 'channel-disabled',
      message: `The channel "${to.channel}" of "${to.channel}:${to.address}" is not enabled. Enabled channels: ${listOf(options.enabledChannels)}.`,
    };
  }
  const person = options.people.find((candidate) => candidate.id === to.personId);
  if (person === undefined) {
    return {
      ok: false,
      failure: 'unknown-person',
      message: `No person has the id "${to.personId}". Known people: ${listOf(options.people.map((known) => known.id))}.`,
    };
  }
  const tried = (options.preference ?? DEFAULT_CHANNEL_PREFERENCE).filter((channel) => enabled.has(channel));
  for (const channel of tried) {
    const [address] = addressesOf(person, channel);
    if (address !== undefined) return { ok: true, destination: destinationFor(channel, address), person };
  }
  const known = Object.keys(person.addresses).filter((channel) => addressesOf(person, channel).length > 0);
  return {
    ok: false,
    failure: 'unreachable',
    message: `${person.name} (${person.id}) has no address on any channel tried (${listOf(tried)}). Their addresses are on: ${listOf(known)}.`,
  };
}
