/** Turns the `people` of `switchboard.yaml` into {@link Person}s, checking ids and addresses. */
import type { AppProblems } from './app-problems.ts';
import { CHANNEL_NAMES, type ChannelName, type Person, type SwitchboardConfig } from './app-types.ts';
import { SWITCHBOARD_FILE } from './read-switchboard-file.ts';

/**
 * A person's `web` addresses no longer identify anyone: browser identities are issued by the
 * server, and a person proves who they are on the web with a one-time sign-in link.
 */
function refuseWebAddresses(entry: NonNullable<SwitchboardConfig['people']>[number], index: number, problems: AppProblems): void {
  (entry.addresses.web ?? []).forEach((address, position) => {
    problems.add(
      SWITCHBOARD_FILE,
      `people[${index}].addresses.web[${position}]`,
      `"${address}" cannot identify ${entry.id}: web chat identities are issued by the server, so a web address proves nothing. ` +
        `Remove it; ${entry.id} signs in on the web with a one-time sign-in link instead (\`npx switchboard invite ${entry.id}\`).`,
    );
  });
}

/**
 * Fills defaults (every channel's address list, `roles: []`), lower-cases email addresses and
 * records a problem for a person id used twice, an address that would identify two people, or any
 * `web` address (the web list is always empty: people sign in on the web with sign-in links).
 */
export function resolvePeople(config: SwitchboardConfig, problems: AppProblems): Person[] {
  const firstById = new Map<string, number>();
  const ownerOfAddress = new Map<string, number>();
  return (config.people ?? []).map((entry, index) => {
    const earlier = firstById.get(entry.id);
    if (earlier === undefined) firstById.set(entry.id, index);
    else problems.add(SWITCHBOARD_FILE, `people[${index}].id`, `"${entry.id}" is already the id of people[${earlier}]`);

    const addresses: Record<ChannelName, readonly string[]> = { web: [], email: [], sms: [], slack: [], whatsapp: [] };
    refuseWebAddresses(entry, index, problems);
    for (const channel of CHANNEL_NAMES) {
      if (channel === 'web') continue;
      const given = entry.addresses[channel] ?? [];
      const list = channel === 'email' ? given.map((address) => address.toLowerCase()) : [...given];
      list.forEach((address, position) => {
        const key = `${channel}:${address}`;
        const owner = ownerOfAddress.get(key);
        if (owner === undefined) ownerOfAddress.set(key, index);
        else {
          problems.add(
            SWITCHBOARD_FILE,
            `people[${index}].addresses.${channel}[${position}]`,
            owner === index
              ? `"${address}" is listed twice`
              : `"${address}" is already an address of people[${owner}]; an address must identify one person`,
          );
        }
      });
      addresses[channel] = list;
    }
    return { id: entry.id, name: entry.name, addresses, roles: [...(entry.roles ?? [])] };
  });
}
