/** `switchboard doctor` checks of the WhatsApp channel: the Cloud API's token and number, or web mode's browser and session. */
import type { DoctorCheck } from '../channel.ts';
import type { SwitchboardEnv } from '../../src/config/env-types.ts';
import { cloudDoctor } from './cloud/cloud-doctor.ts';
import { webDoctor } from './web/web-doctor.ts';

/** The checks of the mode `WHATSAPP_MODE` chose. */
export async function whatsAppDoctor(env: SwitchboardEnv): Promise<readonly DoctorCheck[]> {
  const { whatsapp } = env;
  if (whatsapp === undefined) return [{ name: 'channel whatsapp', status: 'off', detail: 'WHATSAPP_MODE unset' }];
  return whatsapp.mode === 'cloud' ? cloudDoctor(whatsapp) : webDoctor(whatsapp, env.redis);
}
