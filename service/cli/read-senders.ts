/**
 * Each channel's sender policy from an app's `switchboard.yaml`, read on its own (no actors, no
 * tools), with the channels' defaults applied as the service applies them: for `switchboard doctor`
 * and `switchboard senders list`.
 */
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { AppProblems, appInvalidError } from '../../src/runtime/app/app-problems.ts';
import type { ChannelName } from '../../src/runtime/app/app-types.ts';
import { readSwitchboardFile } from '../../src/runtime/app/read-switchboard-file.ts';
import { resolveSenders } from '../../src/runtime/app/resolve-senders.ts';
import { senderPolicies, type SenderPolicy } from '../../src/runtime/senders/sender-policy.ts';

/**
 * Reads and checks the `senders` of the app in `env.appDir`.
 *
 * @throws SwitchboardError `app.invalid` when `switchboard.yaml` or its `senders` have problems.
 */
export async function readSenderPolicies(env: Pick<SwitchboardEnv, 'appDir' | 'whatsapp'>): Promise<Record<ChannelName, SenderPolicy>> {
  const problems = new AppProblems();
  const config = await readSwitchboardFile(env.appDir, problems);
  const senders = config === undefined ? undefined : resolveSenders(config, problems);
  if (problems.size > 0) throw appInvalidError(env.appDir, problems.list());
  const whatsappMode = env.whatsapp?.mode;
  return senderPolicies(senders, whatsappMode === undefined ? {} : { whatsappMode });
}
