/** `switchboard doctor` checks of the web chat: it is always on and needs nothing outside. */
import type { DoctorCheck } from '../channel.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';

/** The web chat's checks: where the page is served. */
export function webDoctor(env: SwitchboardEnv): Promise<readonly DoctorCheck[]> {
  return Promise.resolve([{ name: 'channel web', status: 'ok', detail: `served at ${env.publicUrl}` }]);
}
